//! A flat state's expansion, shared by the search on one thread ([`super::flat`]) and on
//! several ([`super::par`]): its children in the order the search takes them, and a
//! level's states packed.

use coordsim_model::ModelError;

use crate::explore::flat::{Flat, NotFinite, Ways};
use crate::explore::step::Choice;

/// What a flat expansion reuses from state to state: nothing is allocated per state.
pub(super) struct Buffers {
    free: Vec<u32>,
    child: Vec<u64>,
    delta: Vec<u64>,
    order: Vec<u32>,
    scratch: Vec<u64>,
    ways: Ways,
}

impl Buffers {
    /// For `flat`'s states of `size` words (its words, and its counts if kept).
    pub(super) fn new(flat: &Flat<'_>, size: usize) -> Buffers {
        Buffers {
            free: Vec::new(),
            child: vec![0; size],
            delta: vec![0; flat.counts()],
            order: Vec::new(),
            scratch: Vec::new(),
            ways: Ways::default(),
        }
    }
}

/// How a flat state was expanded: its free events (0: an end), the transitions tried
/// (with those the reduction tried before the one it took alone), whether it took one
/// alone, whether its order was chosen (more than one free event, or a crash).
pub(super) struct Expansion {
    pub(super) of: usize,
    pub(super) transitions: u64,
    pub(super) alone: bool,
    pub(super) ordered: bool,
}

/// Each child of flat state `state` (its `flat.width` words, then its counts where kept)
/// the search takes, in order, given to `each` with its rank among them and its choice
/// (its pick among the free events, its draws, whether the reduction took it alone), as
/// the counting search's flat levels take them (the first free event whose step commutes
/// with every other alone; each way it runs where it draws); `each` saying `true` ends the
/// expansion there. `Err(NotFinite)` inside: a step the flat back end leaves to the
/// interpreter (or more than 65,536 children, past a rank's 16 bits).
pub(super) fn children(
    flat: &Flat<'_>,
    state: &[u64],
    bufs: &mut Buffers,
    mut each: impl FnMut(u16, &Choice, &[u64]) -> Result<bool, ModelError>,
) -> Result<Result<Expansion, NotFinite>, ModelError> {
    let width = flat.width;
    let words = &state[..width];
    flat.free(words, &mut bufs.free);
    let of = bufs.free.len();
    let step = (&mut bufs.child[..width], &mut bufs.delta[..]);
    let Ok((alone, mut transitions)) = flat.taken(words, &bufs.free, step, &mut bufs.ways) else {
        return Ok(Err(NotFinite));
    };
    let picks = alone.map_or(0..of, |pick| pick..pick + 1);
    let (mut rank, mut ordered) = (0u16, of > 1);
    let spent = flat.crashes(words);
    for pick in picks {
        let actor = bufs.free[pick];
        // Each way the event runs, then (where it may) the event as a crash of its actor.
        let mut crash = flat.may_crash(words, actor, spent);
        bufs.ways.begin();
        loop {
            let child = &mut bufs.child;
            let mut choice = Choice {
                pick: pick as u16,
                of: of as u16,
                alone: alone.is_some(),
                ..Choice::default()
            };
            let stepped = if let Some((mut draws, given)) = bufs.ways.next() {
                let stepped = flat.step(
                    words,
                    actor,
                    &mut child[..width],
                    &mut bufs.delta,
                    &mut draws,
                );
                bufs.ways.ran(&draws, given);
                (choice.draws, choice.drawn) = (draws.draws, draws.drawn);
                stepped
            } else if std::mem::take(&mut crash) {
                (choice.crash, ordered) = (true, true);
                flat.crash(words, actor, &mut child[..width], &mut bufs.delta)
            } else {
                break;
            };
            if stepped.is_err() {
                return Ok(Err(NotFinite));
            }
            transitions += 1;
            flat.canonicalize(&mut child[..width], &mut bufs.order, &mut bufs.scratch);
            for (at, delta) in bufs.delta.iter().enumerate().take(state.len() - width) {
                child[width + at] = state[width + at].wrapping_add(*delta);
            }
            if each(rank, &choice, child)? {
                return Ok(Ok(Expansion {
                    of,
                    transitions,
                    alone: alone.is_some(),
                    ordered,
                }));
            }
            let Some(next) = rank.checked_add(1) else {
                return Ok(Err(NotFinite));
            };
            rank = next;
        }
    }
    Ok(Ok(Expansion {
        of,
        transitions,
        alone: alone.is_some(),
        ordered,
    }))
}

/// `words` appended to `into` packed: each word as a byte saying how many of its low
/// bytes follow (the rest are 0) and whether they are its bytes swapped (a float's bits
/// have their high bytes set: `2.0` packs in 2 bytes, not 9), then those bytes. A level's
/// waiting states take a quarter of their words' bytes or less.
pub(super) fn pack(words: &[u64], into: &mut Vec<u8>) {
    for &word in words {
        let swapped = word.swap_bytes();
        let (low, flag) = if swapped < word {
            (swapped, 16)
        } else {
            (word, 0)
        };
        let bytes = (71 - low.leading_zeros() as usize) / 8;
        let start = into.len();
        into.push(bytes as u8 | flag);
        // All eight written, then cut: a copy of a fixed size is one store, where one of
        // `bytes` bytes was a call to `memcpy` (a tenth of the search's time).
        into.extend_from_slice(&low.to_le_bytes());
        into.truncate(start + 1 + bytes);
    }
}

/// The state packed at `at` in `from` into `words` (all of them), `at` moved past it.
pub(super) fn unpack(from: &[u8], at: &mut usize, words: &mut [u64]) {
    for word in words.iter_mut() {
        let head = from[*at];
        let bytes = usize::from(head & 15);
        let mut low = [0u8; 8];
        let low = match from.get(*at + 1..*at + 9) {
            // Eight bytes read (one load), those past the word's masked off.
            Some(eight) => {
                low.copy_from_slice(eight);
                let mask = (1u64.checked_shl(8 * bytes as u32)).map_or(u64::MAX, |m| m - 1);
                u64::from_le_bytes(low) & mask
            }
            None => {
                low[..bytes].copy_from_slice(&from[*at + 1..*at + 1 + bytes]);
                u64::from_le_bytes(low)
            }
        };
        *at += 1 + bytes;
        *word = if head & 16 != 0 {
            low.swap_bytes()
        } else {
            low
        };
    }
}

#[cfg(test)]
mod tests {
    use super::{pack, unpack};

    /// Words of every size, floats' bits among them, come back as they were packed; small
    /// numbers and floats with few significant bits take 2 bytes or less.
    #[test]
    fn packed_words_unpack() {
        let words = [
            0,
            1,
            255,
            256,
            u64::MAX,
            2.0f64.to_bits(),
            f64::NAN.to_bits(),
            (-0.5f64).to_bits(),
            0x0123_4567_89AB_CDEF,
        ];
        let mut packed = Vec::new();
        pack(&words, &mut packed);
        pack(&words[..2], &mut packed);
        let (mut at, mut back, mut two) = (0, [7u64; 9], [7u64; 2]);
        unpack(&packed, &mut at, &mut back);
        unpack(&packed, &mut at, &mut two);
        assert_eq!((back, two, at), (words, [0, 1], packed.len()));
        // 0 → 1 byte, 1 → 2, 2.0 (0x4000…) → 2: its high byte alone, swapped.
        let size = |w: u64| {
            let mut p = Vec::new();
            pack(&[w], &mut p);
            p.len()
        };
        assert_eq!(
            (size(0), size(1), size(2.0f64.to_bits()), size(u64::MAX)),
            (1, 2, 2, 9)
        );
    }
}
