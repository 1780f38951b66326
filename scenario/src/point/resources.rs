//! A point's resources: each `[[resource]]` with its numbers computed at the point and
//! checked where they are written.

use coordsim_model::ParamError;
use sim_core::Nanos;

use crate::machine::keys::{KEY_LIMIT, bad_key, key_of};
use crate::point::numbers::{Evaluator, path_key};
use crate::point::{
    InitialKeys, Keys, Lock, LockMode, MAX_INSTANCES, Point, Queue, Register, Server,
};
use crate::syntax::spec::{self, KeysInit, MAX_KEYS, Number, ResourceKind};

impl Point {
    /// A resource at this point, added to its kind's list.
    pub(super) fn resource(
        &mut self,
        evaluator: &Evaluator<'_>,
        at: &str,
        name: &str,
        kind: &ResourceKind,
    ) -> Result<(), ParamError> {
        match kind {
            ResourceKind::Register {
                initial,
                read_ms,
                write_ms,
                fenced_by,
            } => self.registers.push(Register {
                name: name.to_string(),
                initial: evaluator.number(initial, &[at, "initial"])?,
                read_ns: evaluator.duration(read_ms, &[at, "read_ms"])?,
                write_ns: evaluator.duration(write_ms, &[at, "write_ms"])?,
                fence: *fenced_by,
            }),
            ResourceKind::Lock { .. } => self.lock(evaluator, at, name, kind)?,
            ResourceKind::Server { .. } => self.server(evaluator, at, name, kind)?,
            ResourceKind::Link {
                rtt_ms,
                loss,
                duplicate,
            } => {
                let rtt = evaluator.duration(rtt_ms, &[at, "rtt_ms"])?;
                let loss = evaluator.probability(loss, &[at, "loss"])?;
                let duplicate = evaluator.probability(duplicate, &[at, "duplicate"])?;
                self.links.push(rtt / 2);
                self.link_loss.push(loss);
                self.link_duplicate.push(duplicate);
                self.link_names.push(name.to_string());
            }
            ResourceKind::Queue {
                capacity,
                visibility_ms,
                fields,
                link,
            } => {
                let visibility = visibility_ms
                    .as_ref()
                    .map(|v| evaluator.duration(v, &[at, "visibility_ms"]))
                    .transpose()?;
                self.queues.push(Queue {
                    name: name.to_string(),
                    field_names: fields.clone(),
                    capacity: evaluator.whole(capacity, &[at, "capacity"], 0, u32::MAX.into())?,
                    visibility,
                    fields: fields.len(),
                    link: *link,
                });
            }
            ResourceKind::Keys { initial } => self.keys_store(evaluator, at, name, initial)?,
        }
        Ok(())
    }

    /// A lock: its mode, poll and lease, its operator unlocks.
    fn lock(
        &mut self,
        evaluator: &Evaluator<'_>,
        at: &str,
        name: &str,
        kind: &ResourceKind,
    ) -> Result<(), ParamError> {
        let ResourceKind::Lock {
            mode,
            poll_ms,
            lease_ms,
            fencing,
            stale_at_start,
            unlock_at_ms,
        } = kind
        else {
            unreachable!("a lock")
        };
        let mode = match evaluator.choice(mode, spec::LOCK_MODES, &[at, "mode"])? {
            "poll" => LockMode::Poll,
            "queue" => LockMode::Queue,
            _ => LockMode::Lease,
        };
        let poll_ns = evaluator.duration(poll_ms, &[at, "poll_ms"])?;
        if mode != LockMode::Queue && poll_ns == 0 {
            return Err(ParamError::new(
                &path_key(&[at, "poll_ms"]),
                "a polled lock needs poll_ms > 0 (a retry at the same instant never ends)",
            ));
        }
        let mut unlock_ns = Vec::new();
        for time in unlock_at_ms {
            unlock_ns.push(evaluator.duration(time, &[at, "unlock_at_ms"])?);
        }
        self.lock_names.push(name.to_string());
        self.locks.push(Lock {
            at: at.to_string(),
            mode,
            poll_ns,
            lease_ns: evaluator.duration(lease_ms, &[at, "lease_ms"])?,
            fencing: *fencing,
            stale: *stale_at_start,
            unlock_ns,
        });
        Ok(())
    }

    /// A server: its service, instances and down windows.
    fn server(
        &mut self,
        evaluator: &Evaluator<'_>,
        at: &str,
        name: &str,
        kind: &ResourceKind,
    ) -> Result<(), ParamError> {
        let ResourceKind::Server {
            service_ms,
            service,
            service_cv,
            instances,
            down,
            when_down,
        } = kind
        else {
            unreachable!("a server")
        };
        let mut windows: Vec<(Nanos, Nanos)> = Vec::new();
        for (from, to) in down {
            let from_ns = evaluator.duration(from, &[at, "down"])?;
            let to_ns = evaluator.duration(to, &[at, "down"])?;
            if to_ns <= from_ns || windows.last().is_some_and(|(_, end)| from_ns < *end) {
                return Err(ParamError::new(
                    &path_key(&[at, "down"]),
                    format!(
                        "down windows are [from_ms, to_ms] with from < to, in order and not overlapping; got [{}, {}]",
                        sim_core::ns_to_ms(from_ns),
                        sim_core::ns_to_ms(to_ns)
                    ),
                ));
            }
            windows.push((from_ns, to_ns));
        }
        let fail_fast = evaluator.choice(when_down, spec::WHEN_DOWN, &[at, "when_down"])? == "fail";
        if fail_fast && windows.is_empty() {
            return Err(ParamError::new(
                &path_key(&[at, "when_down"]),
                "`when_down = \"fail\"` with no `down` windows: the server is never down, so nothing is ever refused; give `down = [[from_ms, to_ms], …]`",
            ));
        }
        let kind = evaluator.choice(service, spec::SERVICE_KINDS, &[at, "service"])?;
        let ms = evaluator.number(service_ms, &[at, "service_ms"])?;
        let service_ns = evaluator.duration(service_ms, &[at, "service_ms"])?;
        let distribution = evaluator.distribution(
            kind,
            ms,
            service_cv,
            &[at, "service_ms"],
            &[at, "service_cv"],
        )?;
        let instances = evaluator.whole(instances, &[at, "instances"], 1, MAX_INSTANCES)? as u32;
        self.servers.push(Server {
            name: name.to_string(),
            at: at.to_string(),
            service_ns,
            distribution,
            instances,
            abandons: false,
            special: !windows.is_empty(),
            down: windows,
            fail_fast,
        });
        Ok(())
    }

    /// A key store and the keys it starts with (a range stays a range).
    fn keys_store(
        &mut self,
        evaluator: &Evaluator<'_>,
        at: &str,
        name: &str,
        initial: &KeysInit,
    ) -> Result<(), ParamError> {
        let key = |num: &Number, path: &[&str]| -> Result<i64, ParamError> {
            let number = evaluator.number(num, path)?;
            key_of(number).ok_or_else(|| ParamError::new(&path_key(path), bad_key(number)))
        };
        let initial = match initial {
            KeysInit::Pairs(list) => {
                let mut pairs = Vec::with_capacity(list.len());
                for (given_key, given_value) in list {
                    pairs.push((
                        key(given_key, &[at, "initial"])?,
                        evaluator.number(given_value, &[at, "initial"])?,
                    ));
                }
                // A key store holds a key once: a second value for it is a slip.
                let mut keys: Vec<i64> = pairs.iter().map(|(k, _)| *k).collect();
                keys.sort_unstable();
                if let Some(pair) = keys.windows(2).find(|pair| pair[0] == pair[1]) {
                    return Err(ParamError::new(
                        &path_key(&[at, "initial"]),
                        format!(
                            "key {} is given twice: a key store holds each key once",
                            pair[0]
                        ),
                    ));
                }
                InitialKeys::Pairs(pairs)
            }
            KeysInit::Range { from, count, value } => {
                let from = key(from, &[at, "initial", "from"])?;
                let count = evaluator.whole(count, &[at, "initial", "count"], 0, MAX_KEYS)?;
                let value = evaluator.number(value, &[at, "initial", "value"])?;
                // In whole numbers, not doubles: near 2^53 a double rounds the very keys.
                let last = i128::from(from) + i128::from(count) - 1;
                let limit = KEY_LIMIT as i128;
                if count > 0 && last > limit {
                    return Err(ParamError::new(
                        &path_key(&[at, "initial"]),
                        format!(
                            "the range's last key, {from} + {count} − 1 = {last}, is past 2^53 = {limit} (a key is a whole number from -2^53 to 2^53, where every whole number is exact): from {from}, at most {} keys",
                            limit - i128::from(from) + 1
                        ),
                    ));
                }
                InitialKeys::Range { from, count, value }
            }
        };
        self.keys.push(Keys {
            name: name.to_string(),
            at: at.to_string(),
            initial,
        });
        Ok(())
    }
}
