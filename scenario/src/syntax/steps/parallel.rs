//! `{ parallel = [[…], […]], wait = "first" }`: branches that start at one instant, and the
//! join that waits for all of them, the first, or any k. `parallel = { copies = "n", steps =
//! [...] }` is `n` copies of one branch, `n` known at each point.

use coordsim_model::{ComposeError, Value};

use super::before::{Before, Nested};
use crate::syntax::read::{Path, Reader, at, at_index, boolean, fail, get, table};
use crate::syntax::spec::{CANCELS, MAX_BRANCHES, Number, Scope, Step};

/// A branch as written: its steps, their path, and which copy it is (of copies of one).
type Written<'v> = (&'v Value, Path, Option<u8>);

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
        "`parallel` is a list of 1 to {MAX_BRANCHES} branches, each a list of steps: [[{{ request = \"A\" }}], [{{ delay_ms = 10 }}, {{ request = \"B\" }}]], or copies of one branch: {{ copies = \"n\", steps = [{{ request = \"A\" }}] }}"
    );
    // Each branch as written, with its path; copies of one are read once per copy (up to
    // the most a parallel has), each knowing its `copy`, and the point keeps `copies`.
    let (written, copies): (Vec<Written<'_>>, Option<Number>) = match get(entries, "parallel") {
        Some(Value::List(items)) if !items.is_empty() && items.len() <= MAX_BRANCHES => (
            (items.iter().enumerate())
                .map(|(branch, item)| (item, at_index(&here, branch), None))
                .collect(),
            None,
        ),
        Some(Value::Table(copied)) => {
            let (steps, copies) = copied_branch(reader, &here, copied)?;
            let at_steps = at(&here, "steps");
            (
                (0..MAX_BRANCHES as u8)
                    .map(|copy| (steps, at_steps.clone(), Some(copy)))
                    .collect(),
                Some(copies),
            )
        }
        _ => return fail(here, shape),
    };
    let mut branches = Vec::with_capacity(written.len());
    let mut joined: Option<Before> = None;
    for (item, branch_path, copy) in written {
        let Value::List(_) = item else {
            return fail(branch_path, shape);
        };
        let mut inside = before.clone();
        inside.in_branch = true;
        inside.may_hold.clear();
        inside.holds.clear();
        let copy_reader;
        let reader = match copy {
            Some(copy) => {
                copy_reader = Reader {
                    copy: Some(copy),
                    ..reader.clone()
                };
                &copy_reader
            }
            None => reader,
        };
        branches.push(nested(reader, &mut inside, branch_path, Some(item), depth)?);
        joined = Some(match joined {
            None => inside,
            Some(j) => Before::join(j, inside),
        });
    }
    let branch_count = branches.len() as u32;
    // "all" of copies is as many as there are at the point.
    let all = copies
        .clone()
        .unwrap_or(Number::Lit(f64::from(branch_count)));
    let wait = match get(entries, "wait") {
        None => all,
        Some(Value::Str(s)) if s == "all" => all,
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
        copies,
        wait,
        cancel,
        tied,
    })
}

/// `parallel = { copies = "n", steps = [...] }`: the branch's steps, and how many copies of
/// it start (a number or an expression of the parameters, 1 to [`MAX_BRANCHES`] at each
/// point).
fn copied_branch<'v>(
    reader: &Reader<'_>,
    here: &Path,
    entries: &'v [(String, Value)],
) -> Result<(&'v Value, Number), ComposeError> {
    let form = "copies of one branch are { copies = \"n\", steps = [...] }: how many (a number or an expression of the parameters) and the steps each copy runs, where `copy` is which copy it is (from 0)";
    for (key, _) in entries {
        if key != "copies" && key != "steps" {
            return fail(
                at(here, key),
                format!(
                    "unknown key `{key}` of `parallel`{}; {form}",
                    coordsim_model::suggest::did_you_mean(key, &["copies", "steps"])
                ),
            );
        }
    }
    let (Some(copies), Some(steps)) = (get(entries, "copies"), get(entries, "steps")) else {
        return fail(here.clone(), form);
    };
    let copies = reader.num(at(here, "copies"), copies, Scope::Params, &[])?;
    if let Number::Lit(count) = copies
        && !(count.fract() == 0.0 && (1.0..=MAX_BRANCHES as f64).contains(&count))
    {
        return fail(
            at(here, "copies"),
            format!(
                "`copies` is a whole number from 1 to {MAX_BRANCHES}, got {}",
                coordsim_model::number_text(count)
            ),
        );
    }
    Ok((steps, copies))
}
