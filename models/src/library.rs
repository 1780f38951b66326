//! The library world of lessons 002 and 004: a catalog of books and a membership service with
//! no shared transaction. Each call commits on its own.

use rustc_hash::FxHashMap;

use coordsim_model::Value;
use coordsim_model::{Kind, ListItem, field, table_fields};

/// A book's status in the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `rafta`: on the shelf.
    Shelf,
    /// `odunc`: on loan.
    Loan,
}

impl Status {
    /// The lesson's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Status::Shelf => "rafta",
            Status::Loan => "odunc",
        }
    }
}

/// A book: id and status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Book {
    /// Its id.
    pub id: u64,
    /// On the shelf or on loan.
    pub status: Status,
}

/// A member: id, open loans and the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Its id.
    pub id: u64,
    /// Open loans.
    pub open: u64,
    /// Most open loans allowed.
    pub limit: u64,
}

/// The lessons' books: 1, 2 and 3, all on the shelf.
pub(crate) fn lesson_books() -> Vec<Book> {
    (1..=3)
        .map(|id| Book {
            id,
            status: Status::Shelf,
        })
        .collect()
}

/// The lessons' members: 4 (2 of 3), 5 (3 of 3), 6 (0 of 9).
pub(crate) fn lesson_members() -> Vec<Member> {
    vec![
        Member {
            id: 4,
            open: 2,
            limit: 3,
        },
        Member {
            id: 5,
            open: 3,
            limit: 3,
        },
        Member {
            id: 6,
            open: 0,
            limit: 9,
        },
    ]
}

fn whole(value: Option<&Value>, what: &str) -> Result<u64, String> {
    match value {
        Some(Value::Int(n)) if *n >= 0 => Ok(*n as u64),
        _ => Err(format!("needs `{what}`, an integer ≥ 0")),
    }
}

impl ListItem for Book {
    const LIST_KIND: Kind = Kind::Tables("id, status = \"rafta\" | \"odunc\"");
    fn list_from_value(value: &Value) -> Result<Vec<Self>, String> {
        let Value::List(items) = value else {
            return Err(format!(
                "expected an array of books, got {}",
                value.type_name()
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let t = table_fields("books", i, item, &["id", "status"])?;
                let id = whole(field(t, "id"), "id").map_err(|m| format!("books[{i}] {m}"))?;
                let status = match field(t, "status") {
                    None => Status::Shelf,
                    Some(Value::Str(s)) if s == "rafta" => Status::Shelf,
                    Some(Value::Str(s)) if s == "odunc" => Status::Loan,
                    Some(other) => {
                        return Err(format!(
                            "books[{i}]: status must be \"rafta\" or \"odunc\", got {other}"
                        ));
                    }
                };
                Ok(Book { id, status })
            })
            .collect()
    }
    fn list_to_value(list: &[Self]) -> Value {
        Value::List(
            list.iter()
                .map(|b| {
                    Value::Table(vec![
                        ("id".into(), Value::Int(b.id as i64)),
                        ("status".into(), Value::Str(b.status.word().into())),
                    ])
                })
                .collect(),
        )
    }
}

impl ListItem for Member {
    const LIST_KIND: Kind = Kind::Tables("id, open, limit");
    fn list_from_value(value: &Value) -> Result<Vec<Self>, String> {
        let Value::List(items) = value else {
            return Err(format!(
                "expected an array of members, got {}",
                value.type_name()
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let t = table_fields("members", i, item, &["id", "open", "limit"])?;
                let m = |k: &str| whole(field(t, k), k).map_err(|e| format!("members[{i}] {e}"));
                Ok(Member {
                    id: m("id")?,
                    open: m("open")?,
                    limit: m("limit")?,
                })
            })
            .collect()
    }
    fn list_to_value(list: &[Self]) -> Value {
        Value::List(
            list.iter()
                .map(|m| {
                    Value::Table(vec![
                        ("id".into(), Value::Int(m.id as i64)),
                        ("open".into(), Value::Int(m.open as i64)),
                        ("limit".into(), Value::Int(m.limit as i64)),
                    ])
                })
                .collect(),
        )
    }
}

/// Why a call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallError {
    /// *mark loaned*: no such book.
    NoSuchBook,
    /// *mark loaned*: the book is not on the shelf.
    NotOnShelf,
    /// *add loan*: no such member.
    NoSuchMember,
    /// *add loan*: the member is at the limit.
    LimitReached,
    /// *mark shelved*: the catalog could not be reached.
    CatalogUnreachable,
    /// A failure drawn by a random variant.
    Injected,
}

impl CallError {
    /// The code written in entity rows.
    pub(crate) fn code(self) -> &'static str {
        match self {
            CallError::NoSuchBook => "no_such_book",
            CallError::NotOnShelf => "not_on_shelf",
            CallError::NoSuchMember => "no_such_member",
            CallError::LimitReached => "limit_reached",
            CallError::CatalogUnreachable => "catalog_unreachable",
            CallError::Injected => "injected_failure",
        }
    }
}

/// Positions by id. Ids added one after another (`id`, `id + 1`, … at consecutive positions,
/// as the random variants create them) form a run found by arithmetic; other ids are hashed.
/// A run keeps a million lookups inside one array, where a hash table would send each to a
/// random cache line. The first position given an id is the one found, as a scan would.
#[derive(Debug, Clone, PartialEq, Default)]
struct Index {
    /// (first id, its position, length); at most `MAX_RUNS`.
    runs: Vec<(u64, usize, usize)>,
    hashed: FxHashMap<u64, usize>,
}

impl Index {
    const MAX_RUNS: usize = 4;

    fn find(&self, id: u64) -> Option<usize> {
        for &(first, pos, len) in &self.runs {
            if id >= first && id - first < len as u64 {
                return Some(pos + (id - first) as usize);
            }
        }
        self.hashed.get(&id).copied()
    }

    fn insert(&mut self, id: u64, pos: usize) {
        if self.find(id).is_some() {
            return;
        }
        if let Some((first, start, len)) = self.runs.last_mut()
            && first.checked_add(*len as u64) == Some(id)
            && *start + *len == pos
        {
            *len += 1;
            return;
        }
        if self.runs.len() < Self::MAX_RUNS {
            self.runs.push((id, pos, 1));
        } else {
            self.hashed.insert(id, pos);
        }
    }
}

/// The two services' data, indexed by id: every call is a lookup, never a scan, so a run
/// costs in proportion to its calls however many books and members there are.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct World {
    books: Vec<Book>,
    members: Vec<Member>,
    book_at: Index,
    member_at: Index,
}

impl World {
    /// A world with these books and members.
    pub(crate) fn new(books: &[Book], members: &[Member]) -> Self {
        let mut world = World {
            books: Vec::new(),
            members: Vec::new(),
            book_at: Index::default(),
            member_at: Index::default(),
        };
        world.reserve(books.len(), members.len());
        books.iter().for_each(|b| world.add_book(*b));
        members.iter().for_each(|m| world.add_member(*m));
        world
    }

    /// Room for `books` more books and `members` more members.
    pub(crate) fn reserve(&mut self, books: usize, members: usize) {
        self.books.reserve(books);
        self.members.reserve(members);
    }

    /// Adds a book (a second book with a taken id is kept but never found).
    pub(crate) fn add_book(&mut self, book: Book) {
        self.book_at.insert(book.id, self.books.len());
        self.books.push(book);
    }

    /// Adds a member (likewise).
    pub(crate) fn add_member(&mut self, member: Member) {
        self.member_at.insert(member.id, self.members.len());
        self.members.push(member);
    }

    /// A book by id.
    pub(crate) fn book(&self, id: u64) -> Option<&Book> {
        self.book_at.find(id).map(|i| &self.books[i])
    }

    /// A book by id, to change.
    pub(crate) fn book_mut(&mut self, id: u64) -> Option<&mut Book> {
        self.book_at.find(id).map(|i| &mut self.books[i])
    }

    /// A member by id.
    pub(crate) fn member(&self, id: u64) -> Option<&Member> {
        self.member_at.find(id).map(|i| &self.members[i])
    }

    /// Every member, in the order they were added.
    pub(crate) fn members(&self) -> &[Member] {
        &self.members
    }

    fn member_mut(&mut self, id: u64) -> Option<&mut Member> {
        self.member_at.find(id).map(|i| &mut self.members[i])
    }

    /// *mark loaned*: fails unless the book exists and is on the shelf.
    pub(crate) fn mark_loaned(&mut self, id: u64) -> Result<(), CallError> {
        let book = self.book_mut(id).ok_or(CallError::NoSuchBook)?;
        if book.status != Status::Shelf {
            return Err(CallError::NotOnShelf);
        }
        book.status = Status::Loan;
        Ok(())
    }

    /// *mark shelved* (the compensation): puts the book back; fails only when the catalog is
    /// unreachable.
    pub(crate) fn mark_shelved(&mut self, id: u64, unreachable: bool) -> Result<(), CallError> {
        if unreachable {
            return Err(CallError::CatalogUnreachable);
        }
        if let Some(book) = self.book_mut(id) {
            book.status = Status::Shelf;
        }
        Ok(())
    }

    /// *add loan*: fails unless the member exists and `open < limit`; else `open += 1`.
    pub(crate) fn add_loan(&mut self, id: u64) -> Result<(), CallError> {
        let member = self.member_mut(id).ok_or(CallError::NoSuchMember)?;
        if member.open >= member.limit {
            return Err(CallError::LimitReached);
        }
        member.open += 1;
        Ok(())
    }

    /// `open += 1` with no limit check (a consumer that applies an effect it was told about).
    pub(crate) fn add_loan_unchecked(&mut self, id: u64) -> Result<(), CallError> {
        let member = self.member_mut(id).ok_or(CallError::NoSuchMember)?;
        member.open += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_find_the_first_book_of_an_id_in_runs_and_out_of_them() {
        // Ids 1-3 (a run), 9, 10 (another), 3 again (a duplicate: never found), then five
        // scattered ids that overflow the runs into the hash.
        let ids = [1, 2, 3, 9, 10, 3, 50, 40, 30, 20, 60];
        let books: Vec<Book> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| Book {
                id,
                status: if i == 5 { Status::Loan } else { Status::Shelf },
            })
            .collect();
        let w = World::new(&books, &[]);
        for id in [1, 2, 3, 9, 10, 50, 40, 30, 20, 60] {
            assert_eq!(w.book(id).map(|b| b.id), Some(id), "{id}");
        }
        // The first book with id 3 is found, as a scan would.
        assert_eq!(w.book(3).unwrap().status, Status::Shelf);
        for id in [0, 4, 8, 11, 21, 1_000_000_000] {
            assert!(w.book(id).is_none(), "{id}");
        }
    }

    #[test]
    fn each_call_succeeds_or_fails_with_its_own_error() {
        let mut w = World::new(&lesson_books(), &lesson_members());
        assert_eq!(w.mark_loaned(1), Ok(()));
        assert_eq!(w.mark_loaned(1), Err(CallError::NotOnShelf));
        assert_eq!(w.mark_loaned(9), Err(CallError::NoSuchBook));
        assert_eq!(w.add_loan(4), Ok(())); // 2 of 3 → 3
        assert_eq!(w.add_loan(4), Err(CallError::LimitReached));
        assert_eq!(w.add_loan(5), Err(CallError::LimitReached)); // 3 of 3
        assert_eq!(w.mark_shelved(1, true), Err(CallError::CatalogUnreachable));
        assert_eq!(w.mark_shelved(1, false), Ok(()));
        assert_eq!(w.book(1).unwrap().status, Status::Shelf);
        assert_eq!(w.member(4).unwrap().open, 3);
    }
}
