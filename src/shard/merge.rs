//! Shards and `merge`: what `run --shard K/N` writes beside its outputs, and joining the
//! shard folders of one config back into the bytes of a single run.
//!
//! A shard folder holds the outputs of its points plus:
//! - `shard-config.toml`: the config it ran, byte for byte;
//! - `shard.txt`: `K/N`, the seed, the config's name, and the SHA-256 of every other file
//!   `merge` reads (so a damaged or edited shard is refused, not merged);
//! - `shard-lanes.csv` when the config draws a timeline and `shard-distributions.csv` when
//!   it draws a distribution, always (a shard whose points draw nothing holds only the
//!   header), so a missing file is an error and never a chart left out.
//!
//! `merge` requires the shards of one config, seed and `N`, every `K` in `0..N` once, each
//! holding exactly its points (index ≡ K mod N), every file intact; then it rebuilds the
//! rows (typed as a direct run's) and writes the outputs as `run` would.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use coordsim_model::Registry;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::export::csv::from_csv;
use crate::export::in_place::InPlace;
use crate::export::{self, write_atomic};
use crate::results::Pooled;
use crate::results::{ColumnSource, Results, Row, Schema, Table, lead_cells};
use crate::source::Source;

/// The config a shard ran, kept beside its outputs for `merge`.
pub(crate) const SHARD_CONFIG: &str = "shard-config.toml";
/// `K/N`, the seed, the config's name and the digests of the shard's files.
pub(crate) const SHARD_INFO: &str = "shard.txt";
/// The timeline lanes of the shard's points (when its config draws a timeline).
pub(crate) const SHARD_LANES: &str = "shard-lanes.csv";
/// The per-request samples a shard's distribution charts draw: `point,name,value_ms`.
pub(crate) const SHARD_DISTRIBUTIONS: &str = "shard-distributions.csv";

/// The most bytes `merge` reads of one shard file (a shard's CSV of 1,000,000 rows of a
/// wide model stays well below).
const MAX_SHARD_FILE_BYTES: u64 = 4 << 30;

/// The files of a shard that `merge` reads, besides `shard.txt`, for this config.
fn shard_files(config: &Config) -> Vec<&'static str> {
    let mut files = vec![SHARD_CONFIG, "results.csv"];
    if config.entities && Schema::entities(config).is_some() {
        files.push("entities.csv");
    }
    if config.draws_timeline() {
        files.push(SHARD_LANES);
    }
    if config.draws_distributions() {
        files.push(SHARD_DISTRIBUTIONS);
    }
    files
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes what `merge` needs beside a shard's outputs in `dir` (its outputs already there).
pub(crate) fn write_shard(
    dir: &Path,
    config: &Config,
    results: &Results,
    (k, n): (usize, usize),
    seed: u64,
) -> anyhow::Result<()> {
    write_atomic(&dir.join(SHARD_CONFIG), config.source.text.as_bytes())?;
    if config.draws_timeline() {
        write_atomic(
            &dir.join(SHARD_LANES),
            &export::lanes::to_csv(&results.lanes)?,
        )?;
    }
    if config.draws_distributions() {
        let bytes = distributions_csv(&results.distributions);
        write_atomic(&dir.join(SHARD_DISTRIBUTIONS), &bytes)?;
    }
    write_info(dir, config, (k, n), seed, None, &shard_files(config))
}

/// Refuses to write shard `K/N` into `dir` when `dir` holds another shard of the same
/// split (the same N): the two would share one folder, the later replacing the earlier,
/// and the merge would then lack a shard. The same shard written again replaces its own,
/// and a part of another split (another N: a re-split) is replaced, as a run's folder is.
pub(crate) fn refuse_another_shard(dir: &Path, (k, n): (usize, usize)) -> anyhow::Result<()> {
    // Not a shard's folder (or none yet): nothing of a split to keep.
    let Ok(held) = read_info(dir) else {
        return Ok(());
    };
    if held.n == n && held.k != k {
        bail!(
            "{} holds shard {}/{n}'s output; shard {k}/{n} would replace it: give each shard of a split its own --out (e.g. `--out parts/{k}` beside `parts/{}`)",
            dir.display(),
            held.k,
            held.k
        );
    }
    Ok(())
}

/// Writes `shard.txt` into `dir`: `K/N`, the seed, the config's name, the exploration's
/// bounds (`explore …`, for a shard of an exploration) and the digest of each of `files`
/// (written already).
pub(crate) fn write_info(
    dir: &Path,
    config: &Config,
    (k, n): (usize, usize),
    seed: u64,
    explore: Option<&str>,
    files: &[&str],
) -> anyhow::Result<()> {
    let mut info = format!("{k}/{n}\nseed {seed}\nconfig {}\n", config.source.name);
    if let Some(bounds) = explore {
        info.push_str(&format!("explore {bounds}\n"));
    }
    for &file in files {
        let path = dir.join(file);
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        info.push_str(&format!("sha256 {} {file}\n", sha256_hex(&bytes)));
    }
    write_atomic(&dir.join(SHARD_INFO), info.as_bytes())
}

fn distributions_csv(pools: &[Pooled]) -> Vec<u8> {
    let mut out = String::from("point,name,value_ms\n");
    for (point, name, values) in pools {
        for v in values {
            out.push_str(&format!("{point},{name},{v}\n"));
        }
    }
    out.into_bytes()
}

/// Reads a shard's samples back; every name must be a distribution of the config's model.
fn distributions_from_csv(
    bytes: &[u8],
    config: &Config,
    path: &Path,
) -> anyhow::Result<Vec<Pooled>> {
    let text =
        std::str::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", path.display()))?;
    let mut lines = text.lines();
    if lines.next() != Some("point,name,value_ms") {
        bail!(
            "{}: line 1: expected the header point,name,value_ms",
            path.display()
        );
    }
    let mut pools: Vec<Pooled> = Vec::new();
    for (i, line) in lines.enumerate() {
        let bad = || anyhow::anyhow!("{}:{}: expected point,name,value_ms", path.display(), i + 2);
        let mut parts = line.split(',');
        let (Some(p), Some(n), Some(v), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let point: usize = p.parse().map_err(|_| bad())?;
        let value: f64 = v.parse().map_err(|_| bad())?;
        let name = config
            .model
            .distributions()
            .iter()
            .find(|d| d.name == n)
            .map(|d| d.name)
            .ok_or_else(bad)?;
        if point >= config.points {
            bail!(
                "{}:{}: point {point} is not a point of the config ({} points)",
                path.display(),
                i + 2,
                config.points
            );
        }
        match pools.last_mut() {
            Some((lp, ln, values)) if *lp == point && *ln == name => values.push(value),
            _ => pools.push((point, name, vec![value])),
        }
    }
    Ok(pools)
}

/// One shard folder as `merge` reads it: its place in the split and its files' digests.
pub(crate) struct ShardInfo {
    pub(crate) dir: PathBuf,
    pub(crate) k: usize,
    pub(crate) n: usize,
    pub(crate) seed: u64,
    pub(crate) name: String,
    /// The bounds it was explored under, for a shard of an exploration.
    pub(crate) explore: Option<String>,
    digests: Vec<(String, String)>,
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    crate::input::read_text_capped(path, MAX_SHARD_FILE_BYTES).map_err(anyhow::Error::msg)
}

pub(crate) fn read_info(dir: &Path) -> anyhow::Result<ShardInfo> {
    let path = dir.join(SHARD_INFO);
    if !dir.join(SHARD_CONFIG).is_file() || !path.is_file() {
        bail!(
            "{} is not the output of `run --shard` or `explore --shard` (no {SHARD_CONFIG} or {SHARD_INFO})",
            dir.display()
        );
    }
    let text = read_text(&path)?;
    let bad = |what: &str| anyhow::anyhow!("{}: {what}", path.display());
    let mut lines = text.lines();
    let (k, n) = lines
        .next()
        .and_then(|l| l.split_once('/'))
        .and_then(|(k, n)| Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
        .filter(|(k, n)| k < n)
        .ok_or_else(|| bad("the first line must be K/N, as `run --shard` writes it"))?;
    let mut info = ShardInfo {
        dir: dir.to_path_buf(),
        k,
        n,
        seed: 0,
        name: "config.toml".into(),
        explore: None,
        digests: Vec::new(),
    };
    let mut seed = None;
    for line in lines {
        if let Some(s) = line.strip_prefix("seed ") {
            seed = Some(
                s.trim()
                    .parse()
                    .map_err(|_| bad("the seed line is damaged"))?,
            );
        } else if let Some(c) = line.strip_prefix("config ") {
            info.name = c.to_string();
        } else if let Some(bounds) = line.strip_prefix("explore ") {
            info.explore = Some(bounds.to_string());
        } else if let Some(d) = line.strip_prefix("sha256 ") {
            let (hex, file) = d
                .split_once(' ')
                .ok_or_else(|| bad("a sha256 line is damaged"))?;
            info.digests.push((file.to_string(), hex.to_string()));
        } else {
            return Err(bad(&format!("unexpected line {line:?}")));
        }
    }
    info.seed = seed.ok_or_else(|| bad("no seed line"))?;
    Ok(info)
}

/// Reads `file` of a shard, refusing it when it is missing or when `shard.txt` records no
/// digest of it.
pub(crate) fn read_file(shard: &ShardInfo, file: &str) -> anyhow::Result<Vec<u8>> {
    let path = shard.dir.join(file);
    if !shard.digests.iter().any(|(f, _)| f == file) {
        bail!(
            "{}: {SHARD_INFO} records no digest of {file}: the shard was written by an older coordsim or damaged; run it again",
            shard.dir.display()
        );
    }
    if !path.is_file() {
        bail!(
            "{} is missing: the shard is incomplete; run it again",
            path.display()
        );
    }
    crate::input::read_capped(&path, MAX_SHARD_FILE_BYTES).map_err(anyhow::Error::msg)
}

/// Refuses `bytes` of `file` unless they are those `shard.txt` recorded. Checked after the
/// file is parsed, so a file of the wrong shape is named by what is wrong with it; this
/// catches the rest (an edited number).
pub(crate) fn verify(shard: &ShardInfo, file: &str, bytes: &[u8]) -> anyhow::Result<()> {
    let want = shard
        .digests
        .iter()
        .find(|(f, _)| f == file)
        .map(|(_, d)| d);
    if want != Some(&sha256_hex(bytes)) {
        bail!(
            "{} was changed after the shard was written (its SHA-256 is not the one {SHARD_INFO} recorded): run the shard again",
            shard.dir.join(file).display()
        );
    }
    Ok(())
}

/// The shards as given, checked to be the whole split of one config and seed.
pub(crate) fn read_shards(dirs: &[PathBuf]) -> anyhow::Result<(Vec<ShardInfo>, String)> {
    let mut shards = Vec::new();
    for dir in dirs {
        shards.push(read_info(dir)?);
    }
    let Some(first) = shards.first() else {
        bail!("no shards given");
    };
    let text = read_text(&first.dir.join(SHARD_CONFIG))?;
    let n = first.n;
    let mut seen = vec![None::<&Path>; n];
    for s in &shards {
        if s.n != n {
            bail!(
                "{} is shard {}/{} but {} is shard {}/{n}: pass the shards of one split",
                s.dir.display(),
                s.k,
                s.n,
                first.dir.display(),
                first.k
            );
        }
        // The config everything else is checked against: intact first.
        let own = read_file(s, SHARD_CONFIG)?;
        verify(s, SHARD_CONFIG, &own)?;
        if s.seed != first.seed || own != text.as_bytes() {
            bail!(
                "{} holds a shard of a different config or seed",
                s.dir.display()
            );
        }
        if s.explore != first.explore {
            bail!(
                "{} and {} are not shards of one split: {}",
                s.dir.display(),
                first.dir.display(),
                match (&s.explore, &first.explore) {
                    (Some(_), Some(_)) =>
                        "their explorations had different bounds (`explore` in shard.txt)",
                    _ => "one is of `run --shard`, the other of `explore --shard`",
                }
            );
        }
        if let Some(other) = seen[s.k] {
            bail!(
                "{} and {} are both shard {}/{n}: pass every shard once",
                other.display(),
                s.dir.display(),
                s.k
            );
        }
        seen[s.k] = Some(&s.dir);
    }
    let missing: Vec<String> = (0..n)
        .filter(|k| seen[*k].is_none())
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shard {} missing: pass every shard once ({n} in all)",
            crate::suggest::listed(&missing)
        );
    }
    Ok((shards, text))
}

/// Refuses an `OUT` that is one of the shard folders, inside one or around one: the
/// merged outputs replace `OUT` whole, so the shard would be lost (a glob that picks up
/// the output folder makes this an easy slip).
pub(crate) fn refuse_out_among_shards(out: &Path, shards: &[PathBuf]) -> anyhow::Result<()> {
    let out_path = resolved(out);
    for shard in shards {
        let shard_path = resolved(shard);
        let (how, harm) = if out_path == shard_path {
            ("is", "replace the shard")
        } else if out_path.starts_with(&shard_path) {
            ("lies inside", "write into the shard")
        } else if shard_path.starts_with(&out_path) {
            ("holds", "replace the shard")
        } else {
            continue;
        };
        bail!(
            "OUT {} {how} the shard folder {}: merging there would {harm}; give merge a folder of its own (e.g. merged/)",
            out.display(),
            shard.display()
        );
    }
    Ok(())
}

/// `path` as the file system would reach it, whether or not it exists yet: made absolute,
/// its `.` and `..` taken word by word, and its longest existing part's links resolved (an
/// OUT to be made, under a link to a shard, is still found inside the shard).
fn resolved(path: &Path) -> PathBuf {
    use std::path::Component;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut plain = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                plain.pop();
            }
            other => plain.push(other),
        }
    }
    for base in plain.ancestors() {
        if let Ok(real) = base.canonicalize() {
            let rest = plain.strip_prefix(base).unwrap_or(Path::new(""));
            return real.join(rest);
        }
    }
    plain
}

/// `coordsim merge OUT SHARD_DIR...` of a run's shards: the rows joined and checked, and
/// the outputs `run` writes, into `out`.
pub(crate) fn merge(out: &Path, shard_dirs: &[PathBuf], registry: &Registry) -> anyhow::Result<()> {
    refuse_out_among_shards(out, shard_dirs)?;
    let (shards, text) = read_shards(shard_dirs)?;
    if shards[0].explore.is_some() {
        bail!("the shards are of an exploration: `coordsim merge` joins them as one");
    }
    let (seed, name) = (shards[0].seed, shards[0].name.clone());
    let config = Config::parse(Source { name, text }, registry)?;
    let results_schema = Schema::results(&config);
    let entities_schema = Schema::entities(&config).filter(|_| config.entities);
    let mut results = Results {
        results: Table {
            schema: results_schema.clone(),
            rows: Vec::new(),
        },
        entities: entities_schema.clone().map(|schema| Table {
            schema,
            rows: Vec::new(),
        }),
        lanes: Vec::new(),
        distributions: Vec::new(),
    };
    let style = config.model.timeline();
    for shard in &shards {
        let files = shard_files(&config);
        // Every file the config needs, present, before any is parsed.
        let mut bytes: Vec<Vec<u8>> = Vec::new();
        for file in &files {
            bytes.push(read_file(shard, file)?);
        }
        let of = |file: &str| &bytes[files.iter().position(|f| *f == file).unwrap_or(0)];
        let path = shard.dir.join("results.csv");
        let part = from_csv(
            of("results.csv"),
            &results_schema,
            &path.display().to_string(),
        )?;
        let rows = checked_rows(&config, seed, part, &path, (shard.k, shard.n))?;
        results.results.rows.extend(rows);
        if let (Some(schema), Some(table)) = (&entities_schema, results.entities.as_mut()) {
            let path = shard.dir.join("entities.csv");
            let part = from_csv(of("entities.csv"), schema, &path.display().to_string())?;
            table.rows.extend(checked_rows(
                &config,
                seed,
                part,
                &path,
                (shard.k, shard.n),
            )?);
        }
        if let (Some(style), true) = (&style, files.contains(&SHARD_LANES)) {
            let path = shard.dir.join(SHARD_LANES);
            let lanes = export::lanes::from_csv(of(SHARD_LANES), style)
                .with_context(|| format!("{} is damaged", path.display()))?;
            results.lanes.extend(lanes);
        }
        if files.contains(&SHARD_DISTRIBUTIONS) {
            let path = shard.dir.join(SHARD_DISTRIBUTIONS);
            results.distributions.extend(distributions_from_csv(
                of(SHARD_DISTRIBUTIONS),
                &config,
                &path,
            )?);
        }
        for (file, b) in files.iter().zip(&bytes) {
            verify(shard, file, b)?;
        }
    }
    // Rows in point order (stable: replications and entities keep their order within a point).
    let by_point = |table: &mut Table| {
        let mut rows = std::mem::take(&mut table.rows);
        rows.sort_by_key(|row| table.point(row));
        table.rows = rows;
    };
    by_point(&mut results.results);
    if let Some(e) = results.entities.as_mut() {
        by_point(e);
    }
    results.lanes.sort_by_key(|(point, _)| *point);
    results.distributions.sort_by_key(|(point, _, _)| *point);
    // Every point once, with its replications in order: nothing missing, nothing twice.
    let table = &results.results;
    let reps = config.replications;
    let complete = table.rows.len() as u64 == config.runs()
        && table.rows.iter().enumerate().all(|(i, row)| {
            table.point(row) as u64 == i as u64 / reps && table.replication(row) == i as u64 % reps
        });
    if !complete {
        let mut seen: Vec<usize> = table.rows.iter().map(|r| table.point(r)).collect();
        seen.dedup();
        bail!(
            "the shards hold {} rows for {} of the config's {} points ({} runs); pass every shard once",
            table.rows.len(),
            seen.len(),
            config.points,
            config.runs()
        );
    }
    let staging = InPlace::begin(out)?;
    crate::labels::check_value_labels(&config, &results)?;
    crate::labels::print_warnings(&config);
    export::write_all(&config, &results, seed, &staging.path())?;
    staging.commit()?;
    Ok(())
}

/// A shard's rows, each lead cell checked against the config (point in range and of this
/// shard, the point's swept values, replication and seed) and rebuilt from it, so merged rows are typed exactly
/// as a direct run's.
fn checked_rows(
    config: &Config,
    seed: u64,
    part: Table,
    path: &Path,
    (k, n): (usize, usize),
) -> anyhow::Result<Vec<Row>> {
    let entity_id = part.schema.id(ColumnSource::Entity);
    let lead = part
        .schema
        .columns()
        .iter()
        .take_while(|c| {
            matches!(
                c.source,
                ColumnSource::Point
                    | ColumnSource::Axis(_)
                    | ColumnSource::Replication
                    | ColumnSource::Seed
                    | ColumnSource::Entity
            )
        })
        .count();
    let mut rows = Vec::with_capacity(part.rows.len());
    for (i, row) in part.rows.iter().enumerate() {
        let line = i + 2;
        let point = part.point(row);
        let replication = part.replication(row);
        if point >= config.points || replication >= config.replications {
            bail!(
                "{}: line {line}: point {point}, replication {replication} is not a run of the config ({} points × {} replications)",
                path.display(),
                config.points,
                config.replications
            );
        }
        if point % n != k {
            bail!(
                "{}: line {line}: point {point} is not a point of shard {k}/{n} (its points are those whose index is {k} mod {n})",
                path.display()
            );
        }
        let entity = entity_id.map(|id| row[id].to_string());
        let run_seed = sim_core::replication_seed(seed, replication);
        let expected = lead_cells(
            &part.schema,
            config,
            point,
            replication,
            run_seed,
            entity.as_deref(),
        );
        for (column, (got, want)) in part
            .schema
            .columns()
            .iter()
            .zip(row.cells().iter().zip(&expected))
        {
            if got.to_string() != want.to_string() {
                bail!(
                    "{}: line {line}: `{}` is {got}, but point {point}, replication {replication} of the config has {want}",
                    path.display(),
                    column.name
                );
            }
        }
        let mut cells = expected;
        cells.extend(row.cells()[lead..].iter().cloned());
        // The parameter columns after the metrics hold the config's values too.
        let params = crate::results::param_cells(&part.schema, config, point);
        let first = cells.len() - params.len();
        for ((column, got), want) in part.schema.columns()[first..]
            .iter()
            .zip(&cells[first..])
            .zip(&params)
        {
            if got.to_string() != want.to_string() {
                bail!(
                    "{}: line {line}: `{}` is {got}, but point {point} of the config has {want}",
                    path.display(),
                    column.name
                );
            }
        }
        rows.push(Row::new(cells));
    }
    Ok(rows)
}
