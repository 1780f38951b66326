//! The library world of lessons 002 and 004 — books on the shelf or lent, members with their
//! open loans and limits — as the built-in models' parameters and as key stores, and the
//! random worlds the `outbox`, `idempotency` and `saga` equivalences draw.

use proptest::prelude::*;

/// The library world: books (id, on the shelf) and members (id, open loans, limit), with
/// distinct ids.
#[derive(Debug, Clone)]
pub(super) struct World {
    pub books: Vec<(u64, bool)>,
    pub members: Vec<(u64, u64, u64)>,
}

impl World {
    /// The built-in models' `books` and `members` parameters.
    pub(super) fn params(&self) -> String {
        let books: Vec<String> = self
            .books
            .iter()
            .map(|(id, shelf)| {
                format!(
                    "{{ id = {id}, status = \"{}\" }}",
                    if *shelf { "rafta" } else { "odunc" }
                )
            })
            .collect();
        let members: Vec<String> = self
            .members
            .iter()
            .map(|(id, open, limit)| format!("{{ id = {id}, open = {open}, limit = {limit} }}"))
            .collect();
        format!(
            "books = [{}]\nmembers = [{}]\n",
            books.join(", "),
            members.join(", ")
        )
    }

    /// The world as key stores: `shelf` (the books on the shelf), `open` and `limit` (by
    /// member id). A book on loan, or not in the catalog, is not on the shelf: *mark loaned*
    /// is a remove from `shelf` that finds it or not.
    pub(super) fn resources(&self) -> String {
        let shelf: Vec<String> = self
            .books
            .iter()
            .filter(|b| b.1)
            .map(|b| b.0.to_string())
            .collect();
        let pairs = |f: fn(&(u64, u64, u64)) -> u64| {
            self.members
                .iter()
                .map(|m| format!("[{}, {}]", m.0, f(m)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "[[resource]]\nname = \"shelf\"\nkind = \"keys\"\ninitial = [{}]\n\
             [[resource]]\nname = \"open\"\nkind = \"keys\"\ninitial = [{}]\n\
             [[resource]]\nname = \"limit\"\nkind = \"keys\"\ninitial = [{}]\n",
            shelf.join(", "),
            pairs(|m| m.1),
            pairs(|m| m.2)
        )
    }
}

/// *add loan* for member `member` (an expression), inside a transaction: fails (here: the
/// actor crashes, and the transaction lands nothing) unless the member exists and
/// `open < limit` — a missing member's `open` and `limit` are not numbers, and no
/// comparison with one holds.
pub(super) fn add_loan(member: &str, on_failure: &str) -> String {
    format!(
        "{{ lookup = \"open\", key = \"{member}\" }}, {{ lookup = \"limit\", key = \"{member}\" }}, \
         {{ if = {{ value = \"open\", below = \"limit\" }}, then = [{{ set = \"open\", key = \"{member}\", value = \"open + 1\" }}], else = [{on_failure}] }}"
    )
}

pub(super) fn list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// The random variants' fresh books and members (the built-in's ids).
pub(super) const FRESH: u64 = 1_000_000_000;

/// Up to five books (ids from 1) and three members (4, 5 and 7: member 6 is the consumer's,
/// added apart).
pub(super) fn world() -> impl Strategy<Value = World> {
    (
        proptest::collection::vec(proptest::bool::weighted(0.7), 1..6),
        proptest::collection::vec((0u64..4, 0u64..5), 1..4),
    )
        .prop_map(|(books, members)| World {
            books: books
                .into_iter()
                .enumerate()
                .map(|(i, shelf)| (i as u64 + 1, shelf))
                .collect(),
            members: members
                .into_iter()
                .enumerate()
                .map(|(i, (open, room))| ([4, 5, 7][i], open, open + room))
                .collect(),
        })
}
