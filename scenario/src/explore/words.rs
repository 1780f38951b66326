//! A trace's words: what each event of an execution did, in English and in Turkish, read
//! off the state before and after it and what the run told of it as it ran (a key store
//! step's key and what it met, which the state after the event may no longer hold).

use coordsim_model::explore::Decision;

use crate::machine::keys::Found;
use crate::point::{Operand, Pick, Point, Step};
use crate::run::state::{Event, Sim};
use crate::run::steer::{Draw, DrawKind, Told};
use crate::syntax::spec::{KeyOp, OUTCOMES};

/// A step's words in English and in Turkish (the two locales a config names), as the
/// timeline's kinds have them.
pub(super) struct Said {
    pub(super) en: String,
    pub(super) tr: String,
}

pub(super) fn said(en: impl Into<String>, tr: impl Into<String>) -> Said {
    Said {
        en: en.into(),
        tr: tr.into(),
    }
}

/// A probability as a Turkish reader writes it (`0,2`).
pub(super) fn comma(probability: f64) -> String {
    probability.to_string().replace('.', ",")
}

/// The choice in words: `2 of 3` when several events were free, and each of `drawn`
/// decided (the event's own draws: a chance's are said on its own row, [`chance_words`]).
pub(super) fn choice_words(decision: &Decision, drawn: &[Draw], alone: bool) -> Said {
    let (mut en, mut tr) = (Vec::new(), Vec::new());
    if decision.of > 1 && alone {
        // Not a choice among the others: the reduction ran this one alone, since every
        // order of it among them reaches the same states.
        en.push(format!(
            "{} of {}, alone: it commutes with the others",
            decision.pick + 1,
            decision.of
        ));
        tr.push(format!(
            "{} / {}, tek başına: ötekilerle sırası fark etmez",
            decision.pick + 1,
            decision.of
        ));
    } else if decision.of > 1 {
        en.push(format!("{} of {}", decision.pick + 1, decision.of));
        tr.push(format!("{} / {}", decision.pick + 1, decision.of));
    }
    if decision.crash {
        en.push("crash".to_string());
        tr.push("çökme".to_string());
    }
    let draws = chance_words(drawn);
    if !draws.en.is_empty() {
        en.push(draws.en);
        tr.push(draws.tr);
    }
    said(en.join("; "), tr.join("; "))
}

/// Each draw in words, with its probability: `lost (p = 0.1)`, `chance: yes (p = 0.3)`.
pub(super) fn chance_words(drawn: &[Draw]) -> Said {
    let (mut en, mut tr) = (Vec::new(), Vec::new());
    for draw in drawn {
        let (what, what_tr) = match (draw.kind, draw.taken) {
            (DrawKind::Loss, true) => ("lost", "kaybolur"),
            (DrawKind::Loss, false) => ("not lost", "kaybolmaz"),
            (DrawKind::Duplicate, true) => ("duplicated", "çoğaltılır"),
            (DrawKind::Duplicate, false) => ("not duplicated", "çoğaltılmaz"),
            (DrawKind::Crash, true) => ("crashes", "çöker"),
            (DrawKind::Crash, false) => ("does not crash", "çökmez"),
            (DrawKind::Chance, true) => ("chance: yes", "şans: evet"),
            (DrawKind::Chance, false) => ("chance: no", "şans: hayır"),
        };
        en.push(format!("{what} (p = {})", draw.probability));
        tr.push(format!("{what_tr} (p = {})", comma(draw.probability)));
    }
    said(en.join("; "), tr.join("; "))
}

/// Whose the event is and what it did.
pub(super) fn describe(
    point: &Point,
    (before, after): (&Sim<'_>, &Sim<'_>),
    event: Event,
    acted: Option<(u32, u32)>,
    keys: &mut KeySteps<'_>,
) -> (String, Said) {
    let actor_of = |job: u32| {
        let actor = &after.actors[after.jobs[job as usize].actor as usize];
        point.groups[actor.group as usize].actor_name(actor.index)
    };
    if let Some((job, at)) = acted {
        let group = after.jobs[job as usize].group as usize;
        let step = &point.groups[group].steps[at as usize];
        return (
            actor_of(job),
            step_done(point, (before, after), job, step, keys),
        );
    }
    let lock = |l: u16| point.lock_names[l as usize].clone();
    match event {
        Event::Start { actor } => {
            let actor = &after.actors[actor as usize];
            let repetition = actor.started.saturating_sub(1);
            (
                point.groups[actor.group as usize].actor_name(actor.index),
                said(
                    format!("starts repetition {repetition}"),
                    format!("{repetition}. tekrarını başlatır"),
                ),
            )
        }
        // An explored run defers no branch (`DEFERRED`): a deferred one's delay would end
        // as a branch's `Resume` does.
        Event::Resume { job } | Event::Branch { parent: job, .. } => {
            (actor_of(job), said("goes on", "devam eder"))
        }
        Event::Land { job } => {
            let job_state = &before.jobs[job as usize];
            let step = &point.groups[job_state.group as usize].steps[job_state.step as usize];
            (
                actor_of(job),
                step_done(point, (before, after), job, step, keys),
            )
        }
        Event::Retry { job } => {
            let job_state = &before.jobs[job as usize];
            let what = match &point.groups[job_state.group as usize].steps[job_state.step as usize]
            {
                Step::Acquire { lock: pick, .. } => {
                    let (en, tr) = took(before, after, job);
                    let name = named(lock, pick);
                    said(
                        format!("tries {} again: {en}", name.en),
                        format!("{} kilidini yeniden dener: {tr}", name.tr),
                    )
                }
                _ => said("tries its lock again", "kilidini yeniden dener"),
            };
            (actor_of(job), what)
        }
        Event::Timeout { job, .. } => {
            // A timer counts only when the wait it was set for is still on: one left from
            // a wait that ended (its take or reply came, it crashed) runs out doing nothing.
            let actor = after.jobs[job as usize].actor as usize;
            let what = if after.actors[actor].timeouts > before.actors[actor].timeouts {
                said("its wait times out", "beklemesi zaman aşımına uğrar")
            } else {
                said(
                    "the timer of a wait already over runs out: nothing happens",
                    "bitmiş bir beklemenin süresi doldu: bir şey olmaz",
                )
            };
            (actor_of(job), what)
        }
        Event::Depart { server, .. } => (
            point.servers[server as usize].name.clone(),
            said("finishes a request", "bir isteği bitirir"),
        ),
        Event::Unlock { lock } => (
            point.lock_names[lock as usize].clone(),
            said(
                "an operator deletes its record",
                "bir operatör kaydını siler",
            ),
        ),
        Event::Down { server } => (
            point.servers[server as usize].name.clone(),
            said("goes down", "kapanır"),
        ),
        Event::Up { server } => (
            point.servers[server as usize].name.clone(),
            said("comes back up", "yeniden açılır"),
        ),
        Event::Arrive { queue, .. } => (
            point.queues[queue as usize].name.clone(),
            said("a message arrives", "bir ileti gelir"),
        ),
        Event::Visible { queue } => {
            let queue = queue as usize;
            let what = if after.queues[queue].returned > before.queues[queue].returned {
                said(
                    "a message's visibility runs out: it is visible again",
                    "bir iletinin görünmezlik süresi doldu: yeniden görünür",
                )
            } else {
                // The timer of a message acknowledged since: nothing comes back.
                said(
                    "a visibility timer runs out: nothing to return",
                    "bir görünmezlik süresi doldu: geri dönen ileti yok",
                )
            };
            (point.queues[queue].name.clone(), what)
        }
    }
}

/// The shared steps an event ran after its first (`touched`, the first among them),
/// appended to `action`: `begins a transaction; then insert on seen, set on ledger`. A
/// read or write among them is said without its value, which the event's end state may no
/// longer hold.
pub(super) fn then_also(
    action: &mut Said,
    point: &Point,
    (before, after): (&Sim<'_>, &Sim<'_>),
    job: u32,
    (touched, keys): (&[(u16, u32)], &mut KeySteps<'_>),
) {
    if touched.len() < 2 {
        return;
    }
    let (mut en, mut tr) = (Vec::new(), Vec::new());
    for &(group, at) in &touched[1..] {
        let step = &point.groups[group as usize].steps[at as usize];
        let said = match step {
            Step::Read(register) => {
                let name = &point.registers[*register as usize].name;
                said(format!("reads {name}"), format!("{name} okur"))
            }
            Step::Write { register, .. } => {
                let name = &point.registers[*register as usize].name;
                said(format!("writes {name}"), format!("{name} yazar"))
            }
            other => step_done(point, (before, after), job, other, keys),
        };
        en.push(said.en);
        tr.push(said.tr);
    }
    action.en = format!("{}; then {}", action.en, en.join(", "));
    action.tr = format!("{}; ardından {}", action.tr, tr.join(", "));
}

/// A resource a step names, by its name (the first of a list, and how many).
fn named(names: impl Fn(u16) -> String, pick: &Pick) -> Said {
    match pick {
        Pick::One(r) => said(names(*r), names(*r)),
        Pick::OneOf(items, _) => said(
            format!("one of {} ({}…)", items.len(), names(items[0])),
            format!("{} taneden biri ({}…)", items.len(), names(items[0])),
        ),
    }
}

/// Whether `job` took a lock between `before` and `after`: `takes it`, or `waits` (and
/// in Turkish).
fn took(before: &Sim<'_>, after: &Sim<'_>, job: u32) -> (&'static str, &'static str) {
    let (job_index, lock_count) = (job as usize, after.locks.len());
    // A job started by this event has no row before it. A token new since `before` is a
    // lock taken (a lease taken again after a lost renewal replaces the stale token).
    let range = job_index * lock_count..(job_index + 1) * lock_count;
    let was = before.tables.tokens.get(range.clone()).unwrap_or_default();
    let is = after.tables.tokens.get(range).unwrap_or_default();
    if is
        .iter()
        .enumerate()
        .any(|(lock, t)| *t != 0 && was.get(lock) != Some(t))
    {
        ("takes it", "alır")
    } else {
        ("waits", "bekler")
    }
}

/// What `job`'s read of `register` got, read off the state after it.
fn read_done(
    point: &Point,
    before: &Sim<'_>,
    after: &Sim<'_>,
    job: usize,
    register: usize,
) -> Said {
    let row = after.tables.reads[job * after.registers.len() + register];
    // A read that ended its repetition (or its job) was blanked with it: it read the value
    // the register held as the event began (no write lands within it).
    let value = if row.is_nan() {
        before.registers[register].value()
    } else {
        row
    };
    let name = &point.registers[register].name;
    said(
        format!("reads {name}: {value}"),
        format!("{name} okur: {}", comma(value)),
    )
}

/// What `job`'s shared `step` did, read off the state before and after it.
fn step_done(
    point: &Point,
    (before, after): (&Sim<'_>, &Sim<'_>),
    job: u32,
    step: &Step,
    keys: &mut KeySteps<'_>,
) -> Said {
    let job_index = job as usize;
    let lock = |l: u16| point.lock_names[l as usize].clone();
    match step {
        Step::Read(register) => read_done(point, before, after, job_index, *register as usize),
        Step::Write { register, .. } => {
            let register = *register as usize;
            let name = &point.registers[register].name;
            if after.registers[register].writes() + after.registers[register].rejected_writes()
                == before.registers[register].writes()
                    + before.registers[register].rejected_writes()
            {
                return said(
                    format!("writes {name} (lands later)"),
                    format!("{name} yazar (sonra yerleşir)"),
                );
            }
            let value = after.registers[register].value();
            if after.registers[register].lost_updates() > before.registers[register].lost_updates()
            {
                said(
                    format!("writes {name} = {value}: a lost update"),
                    format!("{name} = {} yazar: kaybolan güncelleme", comma(value)),
                )
            } else if after.registers[register].rejected_writes()
                > before.registers[register].rejected_writes()
            {
                said(
                    format!("writes {name}: refused"),
                    format!("{name} yazar: reddedildi"),
                )
            } else {
                said(
                    format!("writes {name} = {value}"),
                    format!("{name} = {} yazar", comma(value)),
                )
            }
        }
        Step::Acquire { lock: pick, .. } => {
            let (en, tr) = took(before, after, job);
            let name = named(lock, pick);
            said(
                format!("acquires {}: {en}", name.en),
                format!("{} kilidini ister: {tr}", name.tr),
            )
        }
        Step::Release(pick) => {
            let name = named(lock, pick);
            said(
                format!("releases {}", name.en),
                format!("{} kilidini bırakır", name.tr),
            )
        }
        Step::Renew(pick) => {
            let name = named(lock, pick);
            said(
                format!("renews {}", name.en),
                format!("{} kirasını yeniler", name.tr),
            )
        }
        Step::Request { server, .. } => {
            let name = named(|s| point.servers[s as usize].name.clone(), server);
            said(
                format!("requests {}", name.en),
                format!("{} sunucusuna istek gönderir", name.tr),
            )
        }
        Step::Send { link, .. } => {
            let name = named(|k| point.link_names[k as usize].clone(), link);
            said(
                format!("sends over {}", name.en),
                format!("{} bağlantısından gönderir", name.tr),
            )
        }
        Step::Crash { .. } => {
            let actor = after.jobs[job_index].actor as usize;
            if after.actors[actor].incarnation > before.actors[actor].incarnation
                || after.actors[actor].crashed
            {
                said("crashes", "çöker")
            } else {
                said("does not crash", "çökmez")
            }
        }
        Step::Put { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("puts a message on {name}"),
                format!("{name} kuyruğuna ileti koyar"),
            )
        }
        Step::Take { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("takes from {name}"),
                format!("{name} kuyruğundan alır"),
            )
        }
        Step::Call { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("calls through {name} and waits for the reply"),
                format!("{name} üzerinden çağırır, yanıtı bekler"),
            )
        }
        Step::Reply { queue, .. } => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("replies to the call it took from {name}"),
                format!("{name} kuyruğundan aldığı çağrıyı yanıtlar"),
            )
        }
        Step::Ack(queue) => {
            let name = &point.queues[*queue as usize].name;
            said(
                format!("acknowledges on {name}"),
                format!("{name} kuyruğunda onaylar"),
            )
        }
        Step::Keys {
            operation,
            store,
            value,
            ..
        } => keys.done(point, *operation, *store, value),
        Step::TxBegin => said("begins a transaction", "bir işlem başlatır"),
        Step::BranchEnd => {
            let branch = before.jobs[job_index].branch;
            said(
                format!("ends branch {branch} of its parallel"),
                format!("paralelinin {branch}. dalını bitirir"),
            )
        }
        _ => said("goes on", "devam eder"),
    }
}

/// What an actor last saw of a key in one repetition: its lookup's find, or what its own
/// insert, set or remove left there.
#[derive(Debug, Clone, Copy)]
pub(super) struct Seen {
    actor: u32,
    repetition: u64,
    store: u16,
    key: i64,
    held: Found,
    /// Seen by a lookup (else left by its own insert, set or remove).
    looked: bool,
}

/// The key store steps one event ran, as the run told them (in order), and what each actor
/// has seen of each key along the execution: a set over a value that changed since the
/// actor's own lookup is a lost update, said and drawn as one.
pub(super) struct KeySteps<'a> {
    told: std::slice::Iter<'a, Told>,
    seen: &'a mut Vec<Seen>,
}

impl<'a> KeySteps<'a> {
    /// The key steps among `told`, with what was seen before this event.
    pub(super) fn new(told: &'a [Told], seen: &'a mut Vec<Seen>) -> KeySteps<'a> {
        KeySteps {
            told: told.iter(),
            seen,
        }
    }

    /// The next key store step in words: its key, what it found or met (by the outcome's
    /// name a config's `if` uses, in the config's language), the number it stores.
    fn done(&mut self, point: &Point, operation: KeyOp, store: u16, value: &Operand) -> Said {
        let name = &point.keys[store as usize].name;
        let Some(&Told::Key {
            actor,
            repetition,
            key,
            before,
            number,
            outcome,
            ..
        }) = self.told.find(|t| matches!(t, Told::Key { .. }))
        else {
            // Not told (no trace asked): the step's kind alone.
            return keys_plain(name, operation);
        };
        let this = |seen: &Seen| {
            (seen.actor, seen.repetition, seen.store, seen.key) == (actor, repetition, store, key)
        };
        let seen = self.seen.iter().find(|s| this(s)).copied();
        let after = match (operation, before) {
            (KeyOp::Lookup, found) | (KeyOp::Insert, found @ Found::Held(_)) => found,
            (KeyOp::Insert | KeyOp::Set, _) => Found::Held(number),
            (KeyOp::Remove, _) => Found::Absent,
        };
        let looked = operation == KeyOp::Lookup;
        match self.seen.iter_mut().find(|s| this(s)) {
            Some(seen) => (seen.held, seen.looked) = (after, looked),
            None => self.seen.push(Seen {
                actor,
                repetition,
                store,
                key,
                held: after,
                looked,
            }),
        }
        let (en_word, tr_word) = outcome_words(outcome);
        let held = |found: Found| match found {
            Found::Held(x) => Some((x.to_string(), comma(x))),
            Found::Absent => None,
        };
        // The key as a map's entry, `adlar[7]`, in both languages.
        let at = format!("{name}[{key}]");
        match operation {
            KeyOp::Lookup => match held(before) {
                Some((x, x_tr)) => said(
                    format!("looks up {at}: {en_word} {x}"),
                    format!("{at} arar: {x_tr} {tr_word}"),
                ),
                None => said(
                    format!("looks up {at}: {en_word}"),
                    format!("{at} arar: {tr_word}"),
                ),
            },
            KeyOp::Insert => {
                // An insert with no value (it stores 0) names its key alone, and what a
                // duplicate met is no news.
                let keyed = matches!(value, Operand::Lit(x) if *x == 0.0);
                let (what, what_tr) = if keyed {
                    (at.clone(), at.clone())
                } else {
                    (
                        format!("{at} = {number}"),
                        format!("{at} = {}", comma(number)),
                    )
                };
                match held(before).filter(|_| !keyed) {
                    Some((x, x_tr)) => said(
                        format!("inserts {what}: {en_word} (holds {x})"),
                        format!("{what_tr} ekler: {tr_word} ({x_tr})"),
                    ),
                    None => said(
                        format!("inserts {what}: {en_word}"),
                        format!("{what_tr} ekler: {tr_word}"),
                    ),
                }
            }
            KeyOp::Set => {
                let (what, what_tr) = (
                    format!("sets {at} = {number}"),
                    format!("{at} = {} yazar", comma(number)),
                );
                match (held(before), seen) {
                    // The key changed since the actor last saw it: it overwrites a value it
                    // never saw (check-then-act's lost update).
                    (Some(_), Some(seen)) if !same(seen.held, before) => {
                        let (why, why_tr) = match (held(seen.held), seen.looked) {
                            (Some((y, y_tr)), true) => {
                                (format!("its lookup: {y}"), format!("bakınca {y_tr} idi"))
                            }
                            (None, true) => (
                                "its lookup: missing".to_string(),
                                "bakınca yoktu".to_string(),
                            ),
                            (Some((y, y_tr)), false) => {
                                (format!("it last wrote {y}"), format!("son yazdığı {y_tr}"))
                            }
                            (None, false) => (
                                "it had removed it".to_string(),
                                "kendisi silmişti".to_string(),
                            ),
                        };
                        said(
                            format!("{what}: a lost update ({why})"),
                            format!("{what_tr}: kaybolan güncelleme ({why_tr})"),
                        )
                    }
                    (Some((x, x_tr)), _) => said(
                        format!("{what} (was {x})"),
                        format!("{what_tr} (önceki: {x_tr})"),
                    ),
                    (None, _) => said(
                        format!("{what} (was missing)"),
                        format!("{what_tr} (önceden yoktu)"),
                    ),
                }
            }
            KeyOp::Remove => match held(before) {
                Some((x, x_tr)) => said(
                    format!("removes {at}: {en_word} (was {x})"),
                    format!("{at} siler: {tr_word} ({x_tr} idi)"),
                ),
                None => said(
                    format!("removes {at}: {en_word}"),
                    format!("{at} siler: {tr_word}"),
                ),
            },
        }
    }
}

/// Whether two finds are the same: both absent, or the same number.
fn same(a: Found, b: Found) -> bool {
    match (a, b) {
        (Found::Absent, Found::Absent) => true,
        (Found::Held(x), Found::Held(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

/// A key store step's outcome by the name a config's `if` gives it (`found`, `duplicate`),
/// and in Turkish.
fn outcome_words(outcome: u8) -> (&'static str, &'static str) {
    let name = OUTCOMES.get(outcome as usize).copied().unwrap_or("");
    let turkish = match name {
        "found" => "bulundu",
        "missing" => "yok",
        "inserted" => "eklendi",
        "duplicate" => "zaten var",
        "applied" => "uygulandı",
        "removed" => "silindi",
        _ => name,
    };
    (name, turkish)
}

/// A key store's step in words, when the run did not tell what it met.
fn keys_plain(name: &str, operation: KeyOp) -> Said {
    match operation {
        KeyOp::Insert => said(
            format!("inserts into {name}"),
            format!("{name} deposuna ekler"),
        ),
        KeyOp::Lookup => said(
            format!("looks up in {name}"),
            format!("{name} deposunda arar"),
        ),
        KeyOp::Set => said(
            format!("sets in {name}"),
            format!("{name} deposunda değiştirir"),
        ),
        KeyOp::Remove => said(
            format!("removes from {name}"),
            format!("{name} deposundan siler"),
        ),
    }
}
