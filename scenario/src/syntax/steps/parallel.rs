//! `{ parallel = [[…], […]], wait = "first" }`: branches that start at one instant, and the
//! join that waits for all of them, the first, or any k.

use coordsim_model::{ComposeError, Value};

use super::before::{Before, Nested};
use crate::syntax::read::{Path, Reader, at, at_index, boolean, fail, get, table};
use crate::syntax::spec::{CANCELS, MAX_BRANCHES, Number, Scope, Step};

/// A `parallel` step. Each branch is read from the state before it, holding nothing of its
/// own yet (a lock the actor holds is the actor's, not a branch's to release); after the
/// join the actor may hold what any branch took, and holds surely only what every branch
/// holds at its end.
///
/// Handed also any step a branch may not hold (`action`: a `stop`, a `crash`, a
/// `parallel` inside a branch), to refuse it.
pub(super) fn parallel(
    reader: &Reader<'_>,
    before: &mut Before,
    path: Path,
    step_value: &Value,
    action: &str,
    depth: usize,
    nested: Nested,
) -> Result<Step, ComposeError> {
    if before.in_branch {
        return fail(
            at(&path, action),
            format!(
                "a branch of a `parallel` holds no `{action}` (it ends or restarts the whole repetition, which one branch cannot); put it after the join, under an `if` on `joined` or `failed`"
            ),
        );
    }
    let entries = table(
        &path,
        step_value,
        "a parallel step",
        &["parallel", "wait", "cancel", "tied"],
    )?;
    let here = at(&path, "parallel");
    let shape = format!(
        "`parallel` is a list of 1 to {MAX_BRANCHES} branches, each a list of steps: [[{{ request = \"A\" }}], [{{ delay_ms = 10 }}, {{ request = \"B\" }}]]"
    );
    let Some(Value::List(items)) = get(entries, "parallel") else {
        return fail(here, shape);
    };
    if items.is_empty() || items.len() > MAX_BRANCHES {
        return fail(here, shape);
    }
    let mut branches = Vec::with_capacity(items.len());
    let mut joined: Option<Before> = None;
    for (branch, item) in items.iter().enumerate() {
        let Value::List(_) = item else {
            return fail(at_index(&here, branch), shape);
        };
        let mut inside = before.clone();
        inside.in_branch = true;
        inside.may_hold.clear();
        inside.holds.clear();
        branches.push(nested(
            reader,
            &mut inside,
            at_index(&here, branch),
            Some(item),
            depth,
        )?);
        joined = Some(match joined {
            None => inside,
            Some(j) => Before::join(j, inside),
        });
    }
    let branch_count = branches.len() as u32;
    let wait = match get(entries, "wait") {
        None => Number::Lit(f64::from(branch_count)),
        Some(Value::Str(s)) if s == "all" => Number::Lit(f64::from(branch_count)),
        Some(Value::Str(s)) if s == "first" => Number::Lit(1.0),
        Some(number @ (Value::Int(_) | Value::Str(_))) => {
            reader.num(at(&path, "wait"), number, Scope::Params, &[]).map_err(|error| {
                ComposeError::new(
                    at(&path, "wait"),
                    format!(
                        "`wait` is \"all\" (every branch), \"first\" (the first to come through), or how many branches, from 1 to {branch_count} (a number or an expression of the parameters): {}",
                        error.message
                    ),
                )
            })?
        }
        Some(_) => {
            return fail(
                at(&path, "wait"),
                format!(
                    "`wait` is \"all\" (every branch), \"first\" (the first to come through), or how many branches, from 1 to {branch_count}"
                ),
            );
        }
    };
    let cancel = reader.opt_choice(&path, entries, "cancel", CANCELS, "withdraw")?;
    let tied = boolean(at(&path, "tied"), get(entries, "tied"))?;
    if tied && wait != Number::Lit(1.0) {
        return fail(
            at(&path, "tied"),
            "tied branches cancel each other when one's request starts its service, so only one can come through: give `wait = \"first\"`",
        );
    }
    let joined = joined.expect("at least one branch");
    before.learn(&joined);
    for (index, read) in joined.read.iter().enumerate() {
        before.read[index] |= *read;
    }
    for lock in joined.may_hold {
        if !before.may_hold.contains(&lock) {
            before.may_hold.push(lock);
        }
    }
    for lock in joined.holds {
        if !before.holds.contains(&lock) {
            before.holds.push(lock);
        }
    }
    Ok(Step::Parallel {
        branches,
        wait,
        cancel,
        tied,
    })
}
