//! A mistake in a scenario is named where it is written: a bad key of a timeout, a retry, a
//! branch or a choice at load, a label for no timeline kind, what can never happen, and what
//! only the run can find (a chance outside [0, 1], a negative backoff, a release of a lock
//! not held, a number that is not one stored) at the step that found it.

use super::{num, run_error, run_text};

/// Every bad key of a timeout, a retry, a branch, a choice of resource, a pause, a renewal
/// or a restart refused where it is written, saying what is valid.
#[test]
fn a_bad_timeout_retry_branch_or_choice_key_is_refused_at_its_place() {
    let head = "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 1\n[[resource]]\nname = \"K\"\nkind = \"link\"\nrtt_ms = 2\n[[actor]]\nname = \"a\"\n";
    // Line 16 is the steps line; the column is the bad value's or key's.
    let cases: &[(&str, &str)] = &[
        (
            "steps = [{ request = \"S\", timeout_ms = \"soon\" }]",
            "16:40: in \"soon\" at character 1: unknown name `soon`",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { then = \"later\" } }]",
            "16:65: unknown `then` \"later\"; valid: \"retry\"",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { then = \"retry\" } }]",
            "16:56: a retry needs `max_attempts`",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { then = \"end\", backoff_ms = 3 } }]",
            "16:85: `backoff_ms` is for `then = \"retry\"`",
        ),
        (
            "steps = [{ request = \"S\", timeout_ms = 5, on_timeout = { wait = 1 } }]",
            "16:65: unknown key `wait` of `on_timeout`; valid: steps, then, max_attempts, backoff_ms, jitter_ms",
        ),
        (
            "steps = [{ acquire = \"L\", timeout_ms = 5, give_up_after_ms = 5 }]",
            "16:62: give `timeout_ms` (with `on_timeout`) or `give_up_after_ms`, not both",
        ),
        (
            "steps = [{ if = \"maybe\", then = [{ delay_ms = 1 }] }]",
            "16:17: unknown outcome \"maybe\"; valid: none, acquired, timed_out",
        ),
        (
            "steps = [{ if = { value = \"attempt\" }, then = [] }]",
            "16:17: an `if` is an outcome",
        ),
        (
            "steps = [{ if = \"served\" }]",
            "16:10: an `if` needs `then` (the steps run when the condition holds), `else` (the steps run when it does not), or both",
        ),
        (
            "steps = [{ if = { chance = 0.5 }, then = [{ release = \"L\" }] }]",
            "16:55: the actor does not hold `L` here",
        ),
        (
            "steps = [{ acquire = { one_of = [\"L\", \"S\"], index = \"i\" } }]",
            "16:39: `S` is a server, not a lock",
        ),
        (
            "steps = [{ acquire = { one_of = [], index = \"i\" } }]",
            "16:33: `one_of` names at least one lock",
        ),
        (
            "steps = [{ acquire = { by = \"nope\", x = \"L\" } }]",
            "16:29: `nope` is not a string parameter of this config",
        ),
        (
            "steps = [{ pause_ms = \"k + later\" }]",
            "16:23: in \"k + later\" at character 5: unknown name `later`; valid here: i, k, attempt",
        ),
        (
            "steps = [{ renew = \"L\" }]",
            "16:20: the actor does not hold `L` here",
        ),
        (
            "steps = [{ crash = \"all\", restart_after_ms = \"x\" }]",
            "16:46: in \"x\" at character 1: unknown name `x`",
        ),
        ("steps = [{ send = \"K\", timeout_ms = -1 }]", "16:37:"),
    ];
    let mut wrong = Vec::new();
    for (steps, needle) in cases {
        let text = format!("{head}{steps}\n");
        let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &text)
        else {
            panic!("accepted: {steps}");
        };
        let e = e.to_string();
        let (place, message) = needle.split_at(needle.find(": ").map_or(needle.len(), |k| k + 1));
        if !(e.contains(&format!("t.toml:{place}")) && e.contains(message.trim())) {
            wrong.push(format!("`{needle}` not in `{e}`\n{steps}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A link's loss, a chance: probabilities, checked at the point.
    for (text, needle) in [
        (
            head.replace("rtt_ms = 2\n", "rtt_ms = 2\nloss = 1.5\n")
                + "steps = [{ send = \"K\" }]\n",
            "14:8: a probability is in [0, 1], got 1.5",
        ),
        (
            format!("{head}steps = [{{ if = {{ chance = 2 }}, then = [{{ delay_ms = 1 }}] }}]\n"),
            "16:28: a probability is in [0, 1], got 2",
        ),
        (
            format!(
                "{head}steps = [{{ request = \"S\", timeout_ms = 1, on_timeout = {{ max_attempts = 0 }} }}]\n"
            ),
            "16:73: must be a whole number from 1 to 1000, got 0",
        ),
    ] {
        let Err(e) = crate::harness::library_config(&crate::harness::registry(), "t.toml", &text)
        else {
            panic!("accepted: {text}");
        };
        let e = e.to_string();
        let (place, message) = needle.split_at(needle.find(": ").map_or(needle.len(), |k| k + 1));
        assert!(
            e.contains(&format!("t.toml:{place}")) && e.contains(message.trim()),
            "`{needle}` not in `{e}`"
        );
    }
}

/// A `[labels]` key that is no name of the run lists the scenario's timeline kinds, every
/// span and mark kind by its name, so a misspelt kind is found.
#[test]
fn a_label_for_no_kind_lists_every_timeline_kind() {
    use crate::harness::{coordsim, stderr, write_config};
    let tmp = tempfile::tempdir().unwrap();
    let text = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 1 }]\n[labels]\nretyr = \"yeniden\"\n";
    let config = write_config(tmp.path(), "l.toml", text);
    let o = coordsim(&["check", &config]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let kinds = "its timeline kinds: waiting, served, reading, writing, working, crossing, holding_waiting, paused, backoff, down, server_down, attempt, done, gave_up, crashed, rejected, timeout, retry, lost, refused, lease_lost, restarted";
    assert!(
        stderr(&o).contains("l.toml:6:1:") && stderr(&o).contains(kinds),
        "{}",
        stderr(&o)
    );
    // Spelt right, the kind is a label like any.
    let fixed = write_config(tmp.path(), "m.toml", &text.replace("retyr", "retry"));
    let o = coordsim(&["check", &fixed]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A chance given by an expression must stay a probability: `k - 5` is −5 at the first
/// repetition (k = 0), so the run stops there and says what it came to. `k / 4` over
/// repeat = 5 stays in [0, 1] (0, 0.25, 0.5, 0.75, 1) and runs.
#[test]
fn a_chance_outside_zero_to_one_is_named() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nrepeat = 5\nsteps = [{ if = { chance = \"k - 5\" }, then = [{ write = \"r\", value = 1 }] }]\n";
    let config =
        crate::harness::library_config(&crate::harness::registry(), "t.toml", text).expect("loads");
    let err = config.plan.plans[0]
        .run(&coordsim_model::RunContext::new(0, config.plan.limits))
        .expect_err("a chance of -5");
    assert!(
        err.to_string().contains(
            "actor 0 of `a`: an `if`'s `chance` comes to -5, not a probability in [0, 1]"
        ),
        "{err}"
    );
    let run = run_text(&text.replace("k - 5", "k / 4"), 0);
    assert_eq!(num(run.metric("a.completed")), 5.0);
}

/// A mistake only the run can find is reported where the step that found it is written,
/// with the point: the release on line 16 (column 3, the step's table) at the first sweep
/// value; an `if`'s chance (line 8, column 10); a retry's negative backoff (line 8, the
/// `on_timeout` table at column 57); a write whose NaN value lands 3 ms later, as an event
/// of its own (line 11, the write's table at column 38).
#[test]
fn a_mistake_found_while_running_points_at_its_step() {
    let cases = [
        (
            "model = \"scenario\"\n[sweep]\nhold_ms = [5, 10]\n[[resource]]\nname = \"A\"\nkind = \"lock\"\n[[resource]]\nname = \"B\"\nkind = \"lock\"\n[[actor]]\nname = \"w\"\ncount = 2\nsteps = [\n  { acquire = { one_of = [\"A\", \"B\"], index = \"i\" } },\n  { delay_ms = \"hold_ms\" },\n  { release = { one_of = [\"A\", \"B\"], index = \"1 - i\" } },\n]\n",
            "16:3: `actor[0].steps[2]` at hold_ms = 5: actor 0 of `w` releases `B` at 5 ms",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nrepeat = 3\nsteps = [{ if = { chance = \"k - 1\" }, then = [{ write = \"r\", value = 1 }] }]\n",
            "8:10: `actor[0].steps[0]`: actor 0 of `a`: an `if`'s `chance` comes to -1",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 50\n[[actor]]\nname = \"c\"\nsteps = [{ request = \"S\", timeout_ms = 10, on_timeout = { then = \"retry\", max_attempts = 3, backoff_ms = \"10 - 20 * attempt\" } }]\n",
            "8:57: `actor[0].steps[0].on_timeout`: actor 0 of `c`: a retry's backoff and jitter come to -10 ms",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"r\"\nkind = \"register\"\nwrite_ms = 3\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\n[[actor]]\nname = \"a\"\nsteps = [{ lookup = \"ks\", key = 1 }, { write = \"r\", value = \"ks\" }]\n",
            "11:38: `actor[0].steps[1]`: actor 0 of `a` at 3 ms: a write's value into `r` is NaN",
        ),
    ];
    refused_at(&cases);
}

/// Combinations that can never do what they say are refused where they are written:
/// `when_down = "fail"` on a server with no down window (line 6, its value); `renew` of a
/// queue lock (line 8, the renew's value); an `on_timeout` on a wait with no `timeout_ms`
/// (line 7, the `on_timeout` table); the first 5 of 2 actors crashing (line 5, the count); a key given twice in a key store's
/// `initial` (line 5).
#[test]
fn what_can_never_happen_is_refused_where_it_is_written() {
    let cases = [
        (
            "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\nwhen_down = \"fail\"\n[[actor]]\nname = \"c\"\nsteps = [{ request = \"S\" }]\n",
            "6:13: `resource[0].when_down`: `when_down = \"fail\"` with no `down` windows",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\nmode = \"queue\"\n[[actor]]\nname = \"a\"\nsteps = [{ acquire = \"L\" }, { renew = \"L\" }, { release = \"L\" }]\n",
            "8:39: `actor[0].steps[1].renew`: `renew` keeps a lease fresh, and `L` is not a lease",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"L\"\nkind = \"lock\"\n[[actor]]\nname = \"a\"\nsteps = [{ acquire = \"L\", on_timeout = { then = \"end\" } }, { release = \"L\" }]\n",
            "7:40: `actor[0].steps[0].on_timeout`: an `on_timeout` with no `timeout_ms`: this acquire never times out",
        ),
        (
            "model = \"scenario\"\n[[actor]]\nname = \"w\"\ncount = 2\nsteps = [{ delay_ms = 1 }, { crash = { count = 5 } }]\n",
            "5:48: `actor[0].steps[1].crash.count`: the first 5 actors of `w` crash, but it has 2",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\ninitial = [[1, 2], [1, 3]]\n[[actor]]\nname = \"a\"\nsteps = [{ lookup = \"ks\", key = 1 }]\n",
            "5:11: `resource[0].initial`: key 1 is given twice",
        ),
    ];
    refused_at(&cases);
    // A request to a server that fails fast may have an `on_timeout` alone: a refusal runs it.
    use crate::harness::{coordsim, stderr, write_config};
    let tmp = tempfile::tempdir().unwrap();
    let refused = "model = \"scenario\"\n[[resource]]\nname = \"S\"\nkind = \"server\"\nservice_ms = 10\ndown = [[0, 100]]\nwhen_down = \"fail\"\n[[actor]]\nname = \"c\"\nsteps = [{ request = \"S\", on_timeout = { then = \"end\" } }]\n";
    let path = write_config(tmp.path(), "ok.toml", refused);
    let o = coordsim(&["check", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Each config is refused by `check` (exit 2) with its needle (position and message).
pub(super) fn refused_at(cases: &[(&str, &str)]) {
    use crate::harness::{coordsim, stderr, write_config};
    let tmp = tempfile::tempdir().unwrap();
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = write_config(tmp.path(), &format!("c{i}.toml"), text);
        let o = coordsim(&["check", &path]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(needle),
            "`{needle}` not in {}",
            stderr(&o)
        );
    }
}

/// A number that is not a number is never stored: a lookup of a missing key leaves the
/// store's name NaN, and an insert, a set, a put's value or field, or a register write of
/// it stops the run, naming the actor, the step and the resource (in a transaction too). So
/// does a value that overflows to infinity, and a store whose total would.
#[test]
fn a_store_or_a_queue_refuses_a_number_that_is_not_one() {
    let text = |steps: &str| {
        format!(
            "model = \"scenario\"\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\ninitial = [[1, 5]]\n\
             [[resource]]\nname = \"q\"\nkind = \"queue\"\nfields = [\"m\"]\n\
             [[resource]]\nname = \"r\"\nkind = \"register\"\n\
             [[actor]]\nname = \"a\"\nsteps = [{steps}]\n"
        )
    };
    let missing = "{ lookup = \"ks\", key = 99 }, ";
    for (steps, says) in [
        (
            "{ insert = \"ks\", key = 6, value = \"ks\" }",
            "an insert's value into `ks` is NaN",
        ),
        (
            "{ set = \"ks\", key = 6, value = \"ks + 1\" }",
            "a set's value into `ks` is NaN",
        ),
        (
            "{ put = \"q\", value = \"ks\" }",
            "a put's value on `q` is NaN",
        ),
        (
            "{ put = \"q\", fields = { m = \"ks\" } }",
            "a put's field `m` on `q` is NaN",
        ),
        (
            "{ write = \"r\", value = \"ks\" }",
            "a write's value into `r` is NaN",
        ),
        (
            "{ transaction = [{ insert = \"ks\", key = 6, value = \"ks\" }] }",
            "an insert's value into `ks` is NaN",
        ),
    ] {
        let e = run_error(&text(&format!("{missing}{steps}")));
        assert!(
            e.contains(&format!(
                "actor 0 of `a` at 0 ms: {says}, not a finite number"
            )),
            "{steps}: {e}"
        );
        // Looking up the key that is there (1 → 5), the same steps run.
        run_text(&text(&format!("{}{steps}", missing.replace("99", "1"))), 0);
    }
    // 10^400 (k = 0; an expression of `k`, so computed in the run) is past the largest
    // double: infinite.
    let e = run_error(&text(
        "{ set = \"ks\", key = 2, value = \"10 ^ (400 + k)\" }",
    ));
    assert!(e.contains("a set's value into `ks` is inf"), "{e}");
    // Two keys of 10^308 each: the total (10^308 + 5 + 10^308 > 1.8 · 10^308) overflows.
    let e = run_error(&text(
        "{ set = \"ks\", key = 2, value = \"10 ^ (308 + k)\" }, { set = \"ks\", key = 3, value = \"10 ^ (308 + k)\" }",
    ));
    assert!(
        e.contains("the total of `ks` after this step is inf"),
        "{e}"
    );
}

/// An expression of any size is echoed in at most 80 characters, around where it is wrong:
/// 100,000 opening parentheses nest past 64 at character 66, and 200,000 `1+` pass 1,000
/// terms at character 1001: each shown from 40 characters before, cut with `…` both sides.
#[test]
fn a_huge_expression_is_echoed_in_a_line_around_its_mistake() {
    let head = "model = \"scenario\"\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = \"";
    let nested = format!(
        "{head}{}1{}\" }}]\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(
        super::load_error(&nested),
        format!(
            "t.toml:4:23: actor[0].steps[0].delay_ms: in \"…{}…\" at character 66: the expression nests more than 64 levels deep",
            "(".repeat(80)
        )
    );
    let long = format!("{head}{}1\" }}]\n", "1+".repeat(200_000));
    // Character 1001 (index 1000) is a `1`: the window is indices 960 … 1039.
    assert_eq!(
        super::load_error(&long),
        format!(
            "t.toml:4:23: actor[0].steps[0].delay_ms: in \"…{}\" at character 1001: the expression has more than 1000 terms and operators",
            "1+".repeat(40) + "…"
        )
    );
}

/// A name with Turkish letters is refused saying names are ASCII, with its ASCII spelling;
/// a parameter's too.
#[test]
fn a_name_with_turkish_letters_gets_its_ascii_spelling() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"sayaç\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nsteps = [{ read = \"sayaç\" }]\n";
    assert_eq!(
        super::load_error(text),
        "t.toml:3:8: resource[0].name: a name here is ASCII letters (a–z, A–Z), digits and `_`, starting with a letter or `_`, and not `i`, `k`, `read`, `attempt`, `now`, `winner`, `joined`, `reply`, `copy` or `tie_order` (metrics are named `sayaç.…`); got `sayaç` (did you mean `sayac`?)"
    );
    let param = "model = \"scenario\"\n[params]\n\"İşlem_süresi\" = 5\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 1 }]\n";
    let e = super::load_error(param);
    assert!(
        e.starts_with("t.toml:3:18: params.İşlem_süresi: a scenario parameter's name is ASCII letters (a–z, A–Z), digits and `_`, starting with a letter or `_`")
            && e.ends_with("got `İşlem_süresi` (did you mean `Islem_suresi`?)"),
        "{e}"
    );
}

/// A misspelled resource kind, or option, gets the nearest valid one, as a misspelled key
/// does.
#[test]
fn a_misspelled_kind_or_option_gets_the_nearest() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"s\"\nkind = \"servr\"\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 1 }]\n";
    assert_eq!(
        super::load_error(text),
        "t.toml:4:8: resource[0].kind: unknown kind \"servr\" (did you mean `server`?); valid: \"register\", \"lock\", \"server\", \"link\", \"queue\", \"keys\""
    );
    let mode = text.replace("kind = \"servr\"", "kind = \"lock\"\nmode = \"polll\"");
    assert_eq!(
        super::load_error(&mode),
        "t.toml:5:8: resource[0].mode: unknown option \"polll\" (did you mean `poll`?); valid: \"poll\", \"queue\", \"lease\" (or a string parameter's name)"
    );
}

/// A key that is NaN (a missed lookup's value) stops the run saying when, like every other
/// run-time error, and how to guard against it.
#[test]
fn a_nan_key_is_reported_at_its_instant() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 7 }, { lookup = \"ks\", key = 5 }, { insert = \"ks\", key = \"ks\", value = 1 }]\n";
    let e = run_error(text);
    assert!(
        e.ends_with("actor 0 of `a` at 7 ms: a key is a whole number from -2^53 to 2^53, got NaN (a lookup that found no key, a take that got nothing and a name this path never set are not numbers: check `if = \"found\"` or `if = \"taken\"` first)"),
        "{e}"
    );
}

/// A range of initial keys past 2^53 is refused at the range, in exact whole numbers: from
/// 2^53 − 2 = 9007199254740990, ten keys end at 9007199254740999, and only three
/// (… 990, 991, 992) are keys; a range ending at 2^53 itself is fine.
#[test]
fn a_range_of_keys_past_2_to_the_53_is_refused_in_exact_numbers() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\ninitial = { from = 9007199254740990, count = 10, value = 0 }\n[[actor]]\nname = \"a\"\nsteps = [{ lookup = \"ks\", key = 1 }]\n";
    assert_eq!(
        super::load_error(text),
        "t.toml:5:11: `resource[0].initial`: the range's last key, 9007199254740990 + 10 − 1 = 9007199254740999, is past 2^53 = 9007199254740992 (a key is a whole number from -2^53 to 2^53, where every whole number is exact): from 9007199254740990, at most 3 keys"
    );
    run_text(&text.replace("count = 10", "count = 3"), 0);
}

/// A whole number written past 2^53 is refused where it is written: a double would round
/// 2^53 + 1 = 9007199254740993 to 2^53 = 9007199254740992 and a key past the range would
/// pass as the range's end. 2^53 itself is exact, and a key.
#[test]
fn a_whole_number_past_2_to_the_53_is_refused_where_it_is_written() {
    let text = "model = \"scenario\"\n[[resource]]\nname = \"ks\"\nkind = \"keys\"\n[[actor]]\nname = \"a\"\nsteps = [{ insert = \"ks\", key = 9007199254740993, value = 1 }]\n";
    assert_eq!(
        super::load_error(text),
        "t.toml:7:33: actor[0].steps[0].key: 9007199254740993 is past 2^53 = 9007199254740992 in size, where not every whole number is exact (it would be read as 9007199254740992); write a smaller one"
    );
    run_text(&text.replace("9007199254740993", "9007199254740992"), 0);
    // The same in an expression; a whole number a double holds (2^54) is read as written,
    // and refused as a key only because it is past the keys' range.
    let quoted = text.replace("key = 9007199254740993", "key = \"9007199254740993 + 0\"");
    let e = super::load_error(&quoted);
    assert!(
        e.contains("`9007199254740993` is past 2^53 = 9007199254740992 in size"),
        "{e}"
    );
    let exact = super::load_error(&text.replace("9007199254740993", "18014398509481984"));
    assert!(
        exact.contains("a key is a whole number from -2^53 to 2^53, got 1.8014398509481984e16"),
        "{exact}"
    );
}

/// The ASCII spelling is offered only when it is free: a name the config gives another
/// resource or group (before or after), another parameter, another field of the queue or
/// var, or one of the model's own names is no suggestion (following it would be refused
/// as taken).
#[test]
fn an_ascii_spelling_that_is_taken_is_not_suggested() {
    let cases = [
        // A later resource is called `sayac` already; a group `sayac` likewise.
        (
            "model = \"scenario\"\n[[resource]]\nname = \"sayaç\"\nkind = \"register\"\n[[resource]]\nname = \"sayac\"\nkind = \"register\"\n[[actor]]\nname = \"a\"\nsteps = [{ read = \"sayac\" }]\n",
            "got `sayaç`",
        ),
        (
            "model = \"scenario\"\n[[resource]]\nname = \"sayaç\"\nkind = \"register\"\n[[actor]]\nname = \"sayac\"\nsteps = [{ delay_ms = 1 }]\n",
            "got `sayaç`",
        ),
        // A parameter of the ASCII name is given too.
        (
            "model = \"scenario\"\n[params]\n\"süre\" = 5\nsure = 6\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 1 }]\n",
            "got `süre`",
        ),
        // A queue's other field.
        (
            "model = \"scenario\"\n[[resource]]\nname = \"q\"\nkind = \"queue\"\nfields = [\"üye\", \"uye\"]\n[[actor]]\nname = \"a\"\nsteps = [{ delay_ms = 1 }]\n",
            "got `üye`",
        ),
        // A var whose ASCII spelling is a parameter of the model (`items` of lock_queue),
        // or another var.
        (
            "model = \"lock_queue\"\n[vars]\n\"ıtems\" = \"x\"\n[sweep]\n\"ıtems\" = [1, 2]\n",
            "`ıtems`",
        ),
        (
            "model = \"lock_queue\"\n[vars]\n\"yük\" = \"x\"\nyuk = \"y\"\n[sweep]\n\"yük\" = [1, 2]\nyuk = [1]\n",
            "`yük`",
        ),
    ];
    for (text, names) in cases {
        let e = super::load_error(text);
        assert!(e.contains(names) && !e.contains("did you mean"), "{e}");
    }
    // Free, it is still offered.
    let free = "model = \"lock_queue\"\n[vars]\n\"yük\" = \"x\"\n[sweep]\n\"yük\" = [1, 2]\n";
    let e = super::load_error(free);
    assert!(e.ends_with("(did you mean `yuk`?)"), "{e}");
}
