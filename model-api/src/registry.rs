//! Models by name: the [`Registry`] a front end is built on.

use std::sync::Arc;

use crate::compose::Composer;
use crate::def::{ModelDef, Registered};
use crate::model::Model;

/// Column names the output files use themselves; no parameter or column may take one.
pub const RESERVED_COLUMNS: &[&str] = &["point", "replication", "replications", "seed", "entity"];

/// Why a model cannot join a registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("model `{model}`: {message}")]
pub struct RegistryError {
    /// The model's name.
    pub model: String,
    /// What is wrong.
    pub message: String,
}

/// The models a front end knows, in the order `coordsim models` lists them. A builder:
/// start from [`Registry::new`] (or a crate's ready-made registry) and add models with
/// [`Registry::with`].
#[derive(Clone, Default)]
pub struct Registry {
    models: Vec<Arc<dyn ModelDef>>,
    composers: Vec<Arc<dyn Composer>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Registry {
    /// No models.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds `model`.
    ///
    /// # Panics
    /// When [`Registry::try_with`] refuses it: a duplicate name or column is a programming
    /// error in the code that builds the registry, caught by its first run.
    #[must_use]
    pub fn with<M: Model>(self, model: M) -> Registry {
        match self.try_with(model) {
            Ok(registry) => registry,
            Err(e) => panic!("{e}"),
        }
    }

    /// Adds `model`, or says why not: its name is taken (by a model or a composer) or not
    /// `[a-z0-9_]+`, two of its
    /// parameters or columns share a name, or one takes a [`RESERVED_COLUMNS`] name.
    pub fn try_with<M: Model>(mut self, model: M) -> Result<Registry, RegistryError> {
        let def = Registered(Arc::new(model));
        check_model(&def, &self)?;
        self.models.push(Arc::new(def));
        Ok(self)
    }

    /// Adds a composer (`model = "scenario"`): configs naming it compose their own model.
    ///
    /// # Panics
    /// When its name is taken by a model or another composer (a programming error).
    #[must_use]
    pub fn with_composer<C: Composer + 'static>(mut self, composer: C) -> Registry {
        let name = composer.name();
        assert!(
            self.find(name).is_none() && self.composer(name).is_none(),
            "composer `{name}`: the name is taken"
        );
        self.composers.push(Arc::new(composer));
        self
    }

    /// The composer called `name`.
    pub fn composer(&self, name: &str) -> Option<&Arc<dyn Composer>> {
        self.composers.iter().find(|c| c.name() == name)
    }

    /// Every composer, in registration order.
    pub fn composers(&self) -> &[Arc<dyn Composer>] {
        &self.composers
    }

    /// Checks a composed model as [`Registry::try_with`] checks a declared one: distinct,
    /// unreserved names and tie rules that are choices.
    pub fn check_composed(def: &dyn ModelDef) -> Result<(), RegistryError> {
        check_model(def, &Registry::new())
    }

    /// The model called `name`.
    pub fn find(&self, name: &str) -> Option<&Arc<dyn ModelDef>> {
        self.models.iter().find(|m| m.name() == name)
    }

    /// Every model, in registration order.
    pub fn models(&self) -> &[Arc<dyn ModelDef>] {
        &self.models
    }

    /// Every model's name, in registration order, then every composer's.
    pub fn names(&self) -> Vec<&'static str> {
        self.models
            .iter()
            .map(|m| m.name())
            .chain(self.composers.iter().map(|c| c.name()))
            .collect()
    }
}

fn check_model(def: &dyn ModelDef, registry: &Registry) -> Result<(), RegistryError> {
    let name = def.name();
    let fail = |message: String| RegistryError {
        model: name.to_string(),
        message,
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Err(fail(
            "a model name is lower-case letters, digits and `_`".into(),
        ));
    }
    if registry.find(name).is_some() {
        return Err(fail("a model of this name is registered already".into()));
    }
    if registry.composer(name).is_some() {
        return Err(fail(
            "a composer of this name is registered already (configs name it in `model`)".into(),
        ));
    }
    let lists: [(&str, Vec<&str>); 3] = [
        ("parameter", def.params().iter().map(|p| p.key).collect()),
        ("metric", def.metrics().iter().map(|c| c.name).collect()),
        (
            "entity column",
            def.entity_columns().iter().map(|c| c.name).collect(),
        ),
    ];
    for rule in def.tie_rules() {
        let choice = def
            .params()
            .iter()
            .any(|p| p.key == *rule && matches!(p.kind, crate::declare::Kind::Choice(_)));
        if !choice {
            return Err(fail(format!(
                "the tie rule `{rule}` is not one of its string-choice parameters"
            )));
        }
    }
    for (what, names) in &lists {
        for (i, n) in names.iter().enumerate() {
            if RESERVED_COLUMNS.contains(n) {
                return Err(fail(format!(
                    "the {what} `{n}` takes a name the output files use ({})",
                    RESERVED_COLUMNS.join(", ")
                )));
            }
            if names[..i].contains(n) {
                return Err(fail(format!("two {what}s are called `{n}`")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::{Cell, NoEntity, ParamError};
    use crate::model::{ModelError, Output, RunContext, Valid};
    use crate::value::Value;

    params! {
        /// Test parameters.
        struct P {
            /// a count
            n: u64 = 1,
        }
    }
    columns! {
        /// Test metrics.
        struct M {
            /// n again
            n_out: u64,
        }
    }
    columns! {
        /// A metric row that takes a reserved name.
        struct Bad {
            /// clashes with the seed column
            seed: u64,
        }
    }

    struct Echo(&'static str);
    impl Model for Echo {
        type Params = P;
        type Metrics = M;
        type Entity = NoEntity;
        fn name(&self) -> &'static str {
            self.0
        }
        fn summary(&self) -> &'static str {
            "echo"
        }
        fn validate(&self, p: &P) -> Result<(), ParamError> {
            if p.n > 10 {
                return Err(ParamError::new("n", "at most 10"));
            }
            Ok(())
        }
        fn run(&self, p: &Valid<P>, _: &RunContext) -> Result<Output<M, NoEntity>, ModelError> {
            Ok(Output::new(M { n_out: p.n }))
        }
    }

    struct Reserved;
    impl Model for Reserved {
        type Params = P;
        type Metrics = Bad;
        type Entity = NoEntity;
        fn name(&self) -> &'static str {
            "reserved"
        }
        fn summary(&self) -> &'static str {
            ""
        }
        fn validate(&self, _: &P) -> Result<(), ParamError> {
            Ok(())
        }
        fn run(&self, _: &Valid<P>, _: &RunContext) -> Result<Output<Bad, NoEntity>, ModelError> {
            Ok(Output::new(Bad { seed: 0 }))
        }
    }

    #[test]
    fn a_registry_runs_what_it_was_given_by_name() {
        let r = Registry::new().with(Echo("a")).with(Echo("b"));
        assert_eq!(r.names(), ["a", "b"]);
        let def = r.find("b").unwrap();
        let run = def.prepare(&[Value::Int(7)]).unwrap();
        let out = run.run(&RunContext::new(0, Default::default())).unwrap();
        assert_eq!(out.metrics, [Cell::Count(7)]);
        // Validation runs once, at prepare: 11 is refused there, naming the key.
        let err = def.prepare(&[Value::Int(11)]).err().unwrap();
        assert_eq!(err.key, "n");
    }

    #[test]
    fn duplicate_names_reserved_columns_and_bad_names_are_refused() {
        let r = Registry::new().with(Echo("a"));
        assert!(r.clone().try_with(Echo("a")).is_err());
        assert!(r.clone().try_with(Echo("Bad Name")).is_err());
        let e = r.try_with(Reserved).unwrap_err();
        assert!(e.message.contains("`seed`"), "{e}");
    }

    /// A composer that composes nothing: only its name matters here.
    struct Named(&'static str);
    impl Composer for Named {
        fn name(&self) -> &'static str {
            self.0
        }
        fn summary(&self) -> &'static str {
            ""
        }
        fn sections(&self) -> &'static [&'static str] {
            &[]
        }
        fn guide(&self) -> &'static str {
            ""
        }
        fn starter(&self) -> &'static str {
            ""
        }
        fn compose(
            &self,
            _: &crate::ComposeInput,
        ) -> Result<Arc<dyn ModelDef>, crate::ComposeError> {
            Err(crate::ComposeError::new(Vec::new(), "composes nothing"))
        }
    }

    /// A binary may add its models after the composers (`models().with_composer(…)
    /// .with(Mine)`): a model named like a composer would be unreachable, so it is refused.
    #[test]
    fn a_model_cannot_take_a_composers_name() {
        let r = Registry::new().with_composer(Named("a"));
        let e = r.clone().try_with(Echo("a")).unwrap_err();
        assert!(e.message.contains("composer"), "{e}");
        assert_eq!(r.try_with(Echo("b")).unwrap().names(), ["b", "a"]);
    }
}
