//! What a config's parameters mean, in the page's language: a model's declared English, or
//! what the model says in the page's language ([`ModelDef::param_meaning`]: every built-in
//! model and a scenario say it in Turkish). A model of one's own that says nothing, and a
//! page whose course's locale file puts it in another language, show the English.
//!
//! [`ModelDef::param_meaning`]: coordsim_model::ModelDef::param_meaning

use coordsim_model::{ModelDef, ParamSpec};

use super::words::Words;

/// What parameter `param` of `model` means, in the page's words.
pub(crate) fn meaning(model: &dyn ModelDef, param: &ParamSpec, words: Words<'_>) -> String {
    let english = param.meaning.trim();
    if words.course.is_some_and(|c| c.language.is_some()) {
        return english.to_string();
    }
    model
        .param_meaning(param.key, words.locale.name())
        .unwrap_or(english)
        .to_string()
}
