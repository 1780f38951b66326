//! Models a config composes: a [`Composer`] turns config sections (`[[resource]]`,
//! `[[actor]]`) into a [`ModelDef`] whose parameters and columns the config names.
//!
//! A built-in model declares its columns in Rust, once; a composed model's columns come from
//! its config (`counter.lost_updates` for a register called `counter`). Both go through the
//! same front end: the composer hands back a [`ModelDef`], and sweeps, claims, charts and
//! labels see no difference.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::def::ModelDef;
use crate::value::Value;

/// Most bytes of names [`intern`] keeps over a process's life.
pub const MAX_INTERNED_BYTES: usize = 64 << 20;

static INTERNED: Mutex<(BTreeSet<&'static str>, usize)> = Mutex::new((BTreeSet::new(), 0));

/// A composed model's name as `&'static str`, like every declared name: each distinct text
/// is kept once for the process's life (a config is loaded once; a fuzzer's many configs
/// reuse most names). `None` past [`MAX_INTERNED_BYTES`].
pub fn intern(text: &str) -> Option<&'static str> {
    let mut guard = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    let (names, bytes) = &mut *guard;
    if let Some(name) = names.get(text) {
        return Some(name);
    }
    if *bytes + text.len() > MAX_INTERNED_BYTES {
        return None;
    }
    let name: &'static str = Box::leak(text.to_owned().into_boxed_str());
    *bytes += text.len();
    names.insert(name);
    Some(name)
}

/// One step of the way to a value in a config: a key, or an index into an array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathPart {
    /// A table key.
    Key(String),
    /// An array index (0-based).
    Index(usize),
}

/// What a composer reads: its config sections and the config's parameters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ComposeInput {
    /// The sections it reads ([`Composer::sections`]) that the config has, in file order.
    pub sections: Vec<(String, Value)>,
    /// The config's own parameters: every key of `[params]`, then of `[sweep]`, in file
    /// order, with the values the front end read for it. The composed model declares them,
    /// typed by these values.
    pub params: Vec<ConfigParam>,
}

/// One of a config's own parameters, as the front end read it: its name and the values it
/// takes, so that a composer never reads `[params]` or `[sweep]` itself (nor a range).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigParam {
    /// Its key in `[params]` or `[sweep]`.
    pub name: String,
    /// The values it takes, typed as the front end parsed them: its `[params]` value (one),
    /// or its sweep's values in sweep order (a range `{ from, to, step }` expanded, to whole
    /// numbers when its ends and step are whole numbers ≥ 0). Empty when no value is known
    /// before the points are: a parameter derived at each point (`{ expr = "…" }`, a number),
    /// or a sweep the front end refuses, which it reports after the composer's own errors.
    pub values: Vec<Value>,
}

impl ConfigParam {
    /// A parameter called `name` that takes `values`.
    pub fn new(name: impl Into<String>, values: Vec<Value>) -> ConfigParam {
        ConfigParam {
            name: name.into(),
            values,
        }
    }
}

/// Why a config's sections compose no model: the value at `path` and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComposeError {
    /// Where, from the top of the config (`actor`, 0, `steps`, 2, `value`).
    pub path: Vec<PathPart>,
    /// What is wrong and what would be valid.
    pub message: String,
}

impl ComposeError {
    /// An error at `path`.
    pub fn new(path: Vec<PathPart>, message: impl Into<String>) -> ComposeError {
        ComposeError {
            path,
            message: message.into(),
        }
    }

    /// The path as a config writes it: `actor[0].steps[2].value`.
    pub fn path_text(&self) -> String {
        let mut out = String::new();
        for part in &self.path {
            match part {
                PathPart::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                PathPart::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

impl fmt::Display for ComposeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path_text(), self.message)
    }
}

impl std::error::Error for ComposeError {}

/// A family of models a config composes (`model = "scenario"`).
pub trait Composer: Send + Sync {
    /// The name configs use in `model = "…"`.
    fn name(&self) -> &'static str;
    /// One line on what it composes.
    fn summary(&self) -> &'static str;
    /// The top-level config sections it reads (`resource`, `actor`): only configs of this
    /// model may have them.
    fn sections(&self) -> &'static [&'static str];
    /// Where its format is documented (`docs/scenarios.md`).
    fn guide(&self) -> &'static str;
    /// A config that runs as it is (`coordsim models NAME --config`).
    fn starter(&self) -> &'static str;
    /// The model these sections describe, or where and why they describe none.
    fn compose(&self, input: &ComposeInput) -> Result<Arc<dyn ModelDef>, ComposeError>;
}

impl fmt::Debug for dyn Composer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "composer `{}`", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_names_are_kept_once() {
        let a = intern("counter.lost_updates").unwrap();
        let b = intern(&String::from("counter.lost_updates")).unwrap();
        assert_eq!(a, "counter.lost_updates");
        assert!(std::ptr::eq(a, b), "the same text gives the same storage");
    }

    #[test]
    fn paths_read_as_a_config_writes_them() {
        let e = ComposeError::new(
            vec![
                PathPart::Key("actor".into()),
                PathPart::Index(0),
                PathPart::Key("steps".into()),
                PathPart::Index(2),
            ],
            "x",
        );
        assert_eq!(e.to_string(), "actor[0].steps[2]: x");
    }
}
