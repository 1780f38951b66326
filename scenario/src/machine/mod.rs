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

/// The bytes `len` values of `T` take in a list: an explorer's memory estimate counts a
/// list by its length, not its capacity (which depends on the buffers a state was copied
/// into, and so on the threads: the estimate must not).
#[inline]
pub(crate) fn bytes_of<T>(len: usize) -> u64 {
    (len as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}
