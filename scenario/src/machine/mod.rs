//! The resources, each a machine of its own: it knows nothing of actors, steps or events,
//! only its own state and `sim-core`'s time and samples.

pub(crate) mod keys;
pub(crate) mod link;
pub(crate) mod lock;
pub(crate) mod queue;
pub(crate) mod register;
pub(crate) mod server;

/// A number hashed by its bits: the machines' state hashed for an explorer's fingerprint
/// (two states equal bit for bit hash alike; `0.0` and `-0.0` differ, which only merges
/// fewer states).
#[inline]
pub(crate) fn hash_f64<H: std::hash::Hasher>(value: f64, hasher: &mut H) {
    hasher.write_u64(value.to_bits());
}
