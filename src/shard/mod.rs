//! Which part of a sweep `run --shard` runs: given as `K/N`, or read from the array variables
//! of the scheduler the run is a task of (`--shard auto`).
//!
//! Every way to K and N ends in a check that `0 ≤ K < N` and that `--shard-count`, when given,
//! agrees: a task that cannot tell its shard exactly must fail, since a wrong guess gives two
//! tasks the same points and leaves others unrun, which `merge` only notices afterwards.

pub(crate) mod explore;
pub(crate) mod merge;

/// Which points a `run` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shard {
    /// The points whose index is K mod N.
    Part(usize, usize),
    /// K and N from the scheduler's environment (a Slurm job array, a Kubernetes Indexed Job,
    /// an AWS Batch array job).
    Auto,
}

/// The variable that marks a task of a Slurm job array: the task's id.
const SLURM_ID: &str = "SLURM_ARRAY_TASK_ID";
/// The lowest, highest task id, the step between them and how many tasks there are.
const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
const SLURM_MAX: &str = "SLURM_ARRAY_TASK_MAX";
const SLURM_STEP: &str = "SLURM_ARRAY_TASK_STEP";
const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// A Kubernetes Indexed Job's pod index (0 to completions − 1).
const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
/// An AWS Batch array job's child index (0 to size − 1).
const AWS_INDEX: &str = "AWS_BATCH_JOB_ARRAY_INDEX";

/// Every variable `--shard auto` reads, for a caller (a test) that must clear them all.
pub const SCHEDULER_VARIABLES: [&str; 7] = [
    SLURM_ID,
    SLURM_MIN,
    SLURM_MAX,
    SLURM_STEP,
    SLURM_COUNT,
    K8S_INDEX,
    AWS_INDEX,
];

impl Shard {
    /// K and N: as given, or read from `env` (see the README's "Scale-out on a cluster").
    /// `count` is `--shard-count`: required where the scheduler does not say N (Kubernetes,
    /// AWS Batch), and elsewhere it must agree with the N the shard has.
    pub(crate) fn resolve(
        self,
        count: Option<u64>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(usize, usize), String> {
        let (k, n) = match self {
            Shard::Part(k, n) => {
                if let Some(c) = count.filter(|&c| c != n as u64) {
                    return Err(format!(
                        "--shard {k}/{n} has {n} shards but --shard-count says {c}: make them agree, or drop --shard-count (it is for --shard auto)"
                    ));
                }
                return Ok((k, n));
            }
            Shard::Auto => auto(count, env)?,
        };
        let size = |v: u64| usize::try_from(v).map_err(|_| format!("{v} shards are too many"));
        Ok((size(k)?, size(n)?))
    }
}

/// `--shard auto`: finds the one scheduler whose variable is set and asks it.
fn auto(count: Option<u64>, env: &dyn Fn(&str) -> Option<String>) -> Result<(u64, u64), String> {
    let set: Vec<&str> = [SLURM_ID, K8S_INDEX, AWS_INDEX]
        .into_iter()
        .filter(|v| env(v).is_some())
        .collect();
    match set.as_slice() {
        [] => {
            let hint = if env("SLURM_JOB_ID").is_some() {
                " (SLURM_JOB_ID is set: this Slurm job is not an array; submit it with sbatch --array)"
            } else {
                ""
            };
            Err(format!(
                "--shard auto reads {SLURM_ID} (a Slurm job array), {K8S_INDEX} (a Kubernetes Indexed Job) or {AWS_INDEX} (an AWS Batch array job); none is set{hint}: give --shard K/N"
            ))
        }
        [SLURM_ID] => slurm(count, env),
        [index] => {
            let (scheduler, size) = if *index == K8S_INDEX {
                ("a Kubernetes Indexed Job", "the Job's completions")
            } else {
                ("an AWS Batch array job", "the array's size")
            };
            let k = number(env, index)?.expect("the variable is set");
            let Some(n) = count else {
                return Err(format!(
                    "{index} is set ({scheduler}), which does not say how many shards there are: give {size} as --shard-count N"
                ));
            };
            if k >= n {
                return Err(format!(
                    "{index}={k} but --shard-count is {n}: the index of {scheduler} runs from 0 to {size} − 1, so --shard-count must be {size}"
                ));
            }
            Ok((k, n))
        }
        many => Err(format!(
            "--shard auto found {} set, and cannot tell which scheduler this task belongs to: unset all but one, or give --shard K/N",
            many.join(" and ")
        )),
    }
}

/// A Slurm array task: K = (id − min) / step, N = count. The ids must be exactly min,
/// min + step, …, max (`--array=A-B` or `A-B:S`): of a list such as `--array=1,4,7` Slurm
/// reports step 1, and no task can tell from its id which shard it is.
fn slurm(count: Option<u64>, env: &dyn Fn(&str) -> Option<String>) -> Result<(u64, u64), String> {
    let id = number(env, SLURM_ID)?.expect("the variable is set");
    let min = number(env, SLURM_MIN)?.unwrap_or(0);
    let step = number(env, SLURM_STEP)?.unwrap_or(1);
    let max = number(env, SLURM_MAX)?;
    let tasks = number(env, SLURM_COUNT)?;
    // The variables as Slurm set them, for every message below.
    let vars = || {
        [SLURM_ID, SLURM_MIN, SLURM_MAX, SLURM_STEP, SLURM_COUNT]
            .into_iter()
            .filter_map(|v| env(v).map(|x| format!("{v}={}", x.trim())))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let irregular = |why: &str| {
        format!(
            "{}: {why}, so this task cannot tell which shard it is; submit a range, not a list (sbatch --array=0-15 for 16 shards, or stepped: --array=A-B:S)",
            vars()
        )
    };
    if step == 0 {
        return Err(irregular("a step of 0"));
    }
    // How many ids min, min + step, … up to max there are.
    let in_range = match max {
        Some(max) if max < min => return Err(irregular("the highest id is below the lowest")),
        Some(max) => Some((max - min) / step + 1),
        None => None,
    };
    let n = match (tasks, in_range) {
        (Some(t), Some(r)) if t != r => {
            return Err(irregular(&format!(
                "{t} tasks are not the {r} ids from MIN to MAX by STEP (the array has gaps)"
            )));
        }
        (Some(t), _) => t,
        (None, Some(r)) => r,
        (None, None) => {
            return Err(format!(
                "{SLURM_ID} is set but neither {SLURM_COUNT} nor {SLURM_MAX}: run it as an array job (sbatch --array=0-15 for 16 shards)"
            ));
        }
    };
    if id < min || (id - min) % step != 0 {
        return Err(irregular("the id is not MIN + a multiple of STEP"));
    }
    let k = (id - min) / step;
    if k >= n {
        return Err(irregular(&format!(
            "the id is shard {k}, past the {n} tasks"
        )));
    }
    if let Some(c) = count.filter(|&c| c != n) {
        return Err(format!(
            "{}: the Slurm array has {n} tasks but --shard-count says {c}: make them agree, or drop --shard-count",
            vars()
        ));
    }
    Ok((k, n))
}

/// A variable's value as a whole number ≥ 0, or None when it is not set.
fn number(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<Option<u64>, String> {
    match env(name) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| format!("{name}={v:?} is not a whole number (0 or more)")),
    }
}

/// `--shard`'s value: `auto` or `K/N`.
pub(crate) fn parse_shard(text: &str) -> Result<Shard, String> {
    if text == "auto" {
        return Ok(Shard::Auto);
    }
    parse_part(text).map(|(k, n)| Shard::Part(k, n))
}

fn parse_part(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not K/N (e.g. 0/4)"))?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` is not a whole number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}` is not a whole number"))?;
    if n == 0 || k >= n {
        return Err(format!("need 0 ≤ K < N, got {k}/{n}"));
    }
    Ok((k, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment holding only `vars`.
    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    /// The five variables Slurm 22.05 sets in an array task (as a real `sbatch --array` job
    /// printed them), for task `id` of an array min..=max by step with `count` tasks.
    fn slurm(
        id: u64,
        min: u64,
        max: u64,
        step: u64,
        count: u64,
    ) -> impl Fn(&str) -> Option<String> + use<> {
        let vals = [id, min, max, step, count].map(|v| v.to_string());
        let names = [SLURM_ID, SLURM_MIN, SLURM_MAX, SLURM_STEP, SLURM_COUNT];
        let pairs: Vec<(&str, &str)> = names
            .iter()
            .zip(vals.iter())
            .map(|(n, v)| (*n, v.as_str()))
            .collect();
        env(&pairs)
    }

    fn auto(
        count: Option<u64>,
        e: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(usize, usize), String> {
        Shard::Auto.resolve(count, e)
    }

    #[test]
    fn a_shard_is_a_part_of_a_count_or_auto() {
        assert_eq!(parse_shard("1/4"), Ok(Shard::Part(1, 4)));
        assert_eq!(parse_shard("auto"), Ok(Shard::Auto));
        assert!(parse_shard("4/4").is_err());
        assert!(parse_shard("x").is_err());
        assert!(parse_shard("0/0").is_err());
    }

    #[test]
    fn a_given_shard_must_agree_with_shard_count() {
        let none = env(&[]);
        assert_eq!(Shard::Part(1, 2).resolve(None, &none), Ok((1, 2)));
        assert_eq!(Shard::Part(1, 4).resolve(Some(4), &none), Ok((1, 4)));
        let err = Shard::Part(1, 4).resolve(Some(8), &none).unwrap_err();
        assert!(
            err.contains("--shard 1/4") && err.contains("says 8"),
            "{err}"
        );
        // The scheduler's variables do not matter to an explicit K/N.
        assert_eq!(
            Shard::Part(0, 3).resolve(None, &slurm(5, 0, 9, 1, 10)),
            Ok((0, 3))
        );
    }

    #[test]
    fn a_plain_slurm_array_gives_id_minus_min_of_count() {
        // --array=0-3: ids 0..3, K = id, N = 4.
        for id in 0..4 {
            assert_eq!(auto(None, &slurm(id, 0, 3, 1, 4)), Ok((id as usize, 4)));
        }
        // --array=3-5: ids 3, 4, 5 are shards 0, 1, 2 of 3.
        assert_eq!(auto(None, &slurm(4, 3, 5, 1, 3)), Ok((1, 3)));
        // --array=5: one task, shard 0 of 1.
        assert_eq!(auto(None, &slurm(5, 5, 5, 1, 1)), Ok((0, 1)));
        // Only the id and the count (0-based, as older tools set them): task 2 of 4.
        let e = env(&[(SLURM_ID, "2"), (SLURM_COUNT, "4")]);
        assert_eq!(auto(None, &e), Ok((2, 4)));
        // Only min and max: --array=5-7, task 6 is shard 1 of 7 − 5 + 1 = 3.
        let e = env(&[(SLURM_ID, "6"), (SLURM_MIN, "5"), (SLURM_MAX, "7")]);
        assert_eq!(auto(None, &e), Ok((1, 3)));
    }

    #[test]
    fn a_stepped_slurm_array_gives_id_minus_min_over_step() {
        // --array=0-9:2: ids 0 2 4 6 8 (Slurm reports MAX=8, COUNT=5), K = id / 2.
        let ks: Vec<_> = [0, 2, 4, 6, 8]
            .map(|id| auto(None, &slurm(id, 0, 8, 2, 5)))
            .to_vec();
        assert_eq!(ks, [0, 1, 2, 3, 4].map(|k| Ok((k, 5))).to_vec());
        // --array=0-6:2: ids 0 2 4 6 are the four shards 0..3.
        assert_eq!(auto(None, &slurm(6, 0, 6, 2, 4)), Ok((3, 4)));
        // --array=10-20:5: ids 10 15 20; id 15 is (15 − 10) / 5 = shard 1 of 3.
        assert_eq!(auto(None, &slurm(15, 10, 20, 5, 3)), Ok((1, 3)));
        // Without COUNT: (MAX − MIN) / STEP + 1 = (8 − 0) / 2 + 1 = 5 tasks.
        let e = env(&[
            (SLURM_ID, "8"),
            (SLURM_MIN, "0"),
            (SLURM_MAX, "8"),
            (SLURM_STEP, "2"),
        ]);
        assert_eq!(auto(None, &e), Ok((4, 5)));
    }

    #[test]
    fn a_slurm_array_with_gaps_is_refused_naming_its_variables() {
        // --array=1,4,7: Slurm reports MIN=1 MAX=7 STEP=1 COUNT=3; 3 tasks ≠ (7 − 1) / 1 + 1 = 7.
        for id in [1, 4, 7] {
            let err = auto(None, &slurm(id, 1, 7, 1, 3)).unwrap_err();
            assert!(
                err.contains(&format!("SLURM_ARRAY_TASK_ID={id}"))
                    && err.contains("SLURM_ARRAY_TASK_COUNT=3")
                    && err.contains("SLURM_ARRAY_TASK_STEP=1")
                    && err.contains("gaps"),
                "{err}"
            );
        }
        // --array=0-3,10: COUNT=5 but 0..=10 holds 11 ids.
        assert!(
            auto(None, &slurm(10, 0, 10, 1, 5))
                .unwrap_err()
                .contains("gaps")
        );
        // An id off the step (3 in 0-6:2), below MIN, or a step of 0.
        let off = auto(None, &slurm(3, 0, 6, 2, 4)).unwrap_err();
        assert!(off.contains("not MIN + a multiple of STEP"), "{off}");
        assert!(auto(None, &slurm(2, 3, 5, 1, 3)).is_err());
        assert!(
            auto(None, &slurm(0, 0, 6, 0, 4))
                .unwrap_err()
                .contains("a step of 0")
        );
        // MAX below MIN.
        assert!(auto(None, &slurm(5, 5, 3, 1, 1)).is_err());
        // Only id and count, the id past the count: id 4 of 4 tasks is no shard of 0..3.
        let e = env(&[(SLURM_ID, "4"), (SLURM_COUNT, "4")]);
        assert!(auto(None, &e).unwrap_err().contains("past the 4 tasks"));
        // Neither count nor max.
        let e = env(&[(SLURM_ID, "1")]);
        assert!(auto(None, &e).unwrap_err().contains("neither"));
        // Not a number.
        let e = env(&[(SLURM_ID, "x"), (SLURM_COUNT, "4")]);
        assert!(
            auto(None, &e)
                .unwrap_err()
                .contains("SLURM_ARRAY_TASK_ID=\"x\"")
        );
        let e = env(&[(SLURM_ID, "-1"), (SLURM_COUNT, "4")]);
        assert!(auto(None, &e).unwrap_err().contains("not a whole number"));
    }

    #[test]
    fn shard_count_must_agree_with_a_slurm_array() {
        // --array=0-6:2 has 4 tasks: --shard-count 4 agrees, 7 (the ids' span) does not.
        assert_eq!(auto(Some(4), &slurm(2, 0, 6, 2, 4)), Ok((1, 4)));
        let err = auto(Some(7), &slurm(2, 0, 6, 2, 4)).unwrap_err();
        assert!(err.contains("4 tasks") && err.contains("says 7"), "{err}");
    }

    #[test]
    fn kubernetes_and_aws_batch_indexes_need_shard_count() {
        // Indexed Job with completions 5: index 3 is shard 3 of 5.
        let k8s = env(&[(K8S_INDEX, "3")]);
        assert_eq!(auto(Some(5), &k8s), Ok((3, 5)));
        let err = auto(None, &k8s).unwrap_err();
        assert!(
            err.contains("JOB_COMPLETION_INDEX") && err.contains("--shard-count"),
            "{err}"
        );
        assert!(auto(Some(3), &k8s).is_err(), "index 3 of 3");
        // AWS Batch array of size 10: child 7 is shard 7 of 10.
        let aws = env(&[(AWS_INDEX, "7")]);
        assert_eq!(auto(Some(10), &aws), Ok((7, 10)));
        let err = auto(None, &aws).unwrap_err();
        assert!(
            err.contains("AWS_BATCH_JOB_ARRAY_INDEX") && err.contains("--shard-count"),
            "{err}"
        );
        let err = auto(Some(7), &aws).unwrap_err();
        assert!(err.contains("AWS_BATCH_JOB_ARRAY_INDEX=7"), "{err}");
        let aws0 = env(&[(AWS_INDEX, "0")]);
        assert_eq!(auto(Some(1), &aws0), Ok((0, 1)));
    }

    #[test]
    fn auto_needs_exactly_one_scheduler() {
        let err = auto(None, &env(&[])).unwrap_err();
        assert!(
            err.contains("none is set") && !err.contains("SLURM_JOB_ID"),
            "{err}"
        );
        // A plain (non-array) Slurm job is named as such.
        let err = auto(None, &env(&[("SLURM_JOB_ID", "12")])).unwrap_err();
        assert!(err.contains("not an array"), "{err}");
        // Two schedulers' variables: no guess.
        let both = env(&[(SLURM_ID, "0"), (SLURM_COUNT, "2"), (K8S_INDEX, "1")]);
        let err = auto(Some(2), &both).unwrap_err();
        assert!(
            err.contains("SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX"),
            "{err}"
        );
    }
}
