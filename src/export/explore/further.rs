//! What to try when an exploration stopped at a bound: a line under the page's summary
//! naming the flag or key that lets it go further, so that "0 executions, bounded" is not
//! the last word.

use coordsim_model::{Bound, Exploration, Kept, Reached};

use super::Say;

impl Say {
    /// The line for `e` when a bound stopped it (none when exhaustive, or when nothing
    /// given on the command line lets it go further: a cycle).
    pub(super) fn further(self, e: &Exploration) -> Option<String> {
        let bound: &Bound = e.bounded.as_ref()?;
        // Without counts, a claim needs only the reachable outcomes: far fewer bytes a state.
        let reach = e.counted && !e.cycles;
        // Symmetry would merge states, had `--no-symmetry` not turned it off.
        let turned_off = (e.symmetry.iter()).any(|note| note.kept == Kept::TurnedOff);
        let states = self.0.number(&e.states.to_string());
        let (english, turkish) = match bound.reached {
            Reached::Time { .. } => (
                "To go further: a larger `--max-seconds`.".to_string(),
                "Daha ileri gitmek için: daha büyük bir `--max-seconds`.".to_string(),
            ),
            Reached::States { .. } | Reached::Counts { .. } => (
                format!(
                    "To go further: a larger `--max-states` (up to 1,000,000,000){}.",
                    if turned_off {
                        ", or the symmetry reduction (without `--no-symmetry`)"
                    } else {
                        ""
                    }
                ),
                format!(
                    "Daha ileri gitmek için: daha büyük bir `--max-states` (en çok 1.000.000.000){}.",
                    if turned_off {
                        " ya da simetri indirgemesi (`--no-symmetry` olmadan)"
                    } else {
                        ""
                    }
                ),
            ),
            Reached::Memory { .. } => (
                format!(
                    "To go further: a larger `--max-memory` (or `[limits] max_memory_mb`){}{}.",
                    if e.counted {
                        "; past `--spill-from` the counting's pages go to disk"
                    } else {
                        ""
                    },
                    if turned_off {
                        "; or the symmetry reduction (without `--no-symmetry`)"
                    } else {
                        ""
                    }
                ),
                format!(
                    "Daha ileri gitmek için: daha büyük bir `--max-memory` (ya da `[limits] max_memory_mb`){}{}.",
                    if e.counted {
                        "; `--spill-from`'u aşan sayım sayfaları diske yazılır"
                    } else {
                        ""
                    },
                    if turned_off {
                        "; ya da simetri indirgemesi (`--no-symmetry` olmadan)"
                    } else {
                        ""
                    }
                ),
            ),
            Reached::Spill { .. } => (
                format!(
                    "To go further: the search met {states} states, and counting their executions \
                     needed more disk than `--max-spill` allows: a larger `--max-spill`.",
                ),
                format!(
                    "Daha ileri gitmek için: arama {states} duruma ulaştı, yürütmelerini saymak \
                     `--max-spill`'in izin verdiğinden fazla disk istedi: daha büyük bir \
                     `--max-spill`."
                ),
            ),
            Reached::Outcomes { max } => {
                let max = self.0.number(&max.to_string());
                (
                    format!(
                        "An outcome is one row of the metrics' values, and at most {max} are \
                         kept: a metric that differs in nearly every execution (a time, a \
                         sum of waits) makes one each."
                    ),
                    format!(
                        "Bir sonuç metrik değerlerinin bir satırıdır ve en çok {max} tanesi \
                         tutulur: neredeyse her yürütmede farklı olan bir metrik (bir süre, \
                         beklemelerin toplamı) her birine bir sonuç açar."
                    ),
                )
            }
            Reached::Cycle => return None,
        };
        let (mut english, mut turkish) = (english, turkish);
        if reach
            && !matches!(
                bound.reached,
                Reached::Time { .. } | Reached::Outcomes { .. }
            )
        {
            english.push_str(
                " Where the claims need no counts (no probability, mean or percentile), \
                 `--no-counts` keeps far fewer bytes a state.",
            );
            turkish.push_str(
                " İddialar sayı istemiyorsa (olasılık, ortalama ya da yüzdelik yoksa) \
                 `--no-counts` durum başına çok daha az bayt tutar.",
            );
        }
        Some(self.pick(&english, &turkish).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::Say;
    use crate::locale::Locale;
    use coordsim_model::{Bound, Exploration, Kept, Reached};

    fn bounded(reached: Option<Reached>, counted: bool) -> Exploration {
        Exploration {
            cycles: false,
            counted,
            states: 3_892_125,
            transitions: 1,
            executions: 0,
            bounded: reached.map(Bound::new),
            ordered: false,
            longest: 0,
            reduced: 0,
            keyed: true,
            symmetry: Vec::new(),
            outcomes: Vec::new(),
            part: None,
            schedulers: None,
            paths: Vec::new(),
            engine: coordsim_model::Engine::Interpret,
        }
    }

    /// Each bound names the flag that lifts it, in the config's language; the search
    /// without counts is offered where the counting search was bounded by its size (not
    /// by time, and not to a search that counts nothing already); nothing is said of an
    /// exhaustive exploration or of a cycle (no flag lifts it).
    #[test]
    fn a_bound_names_what_lifts_it() {
        let (en, tr) = (Say(Locale::En), Say(Locale::Tr));
        let spill = bounded(Some(Reached::Spill { states: 93_424 }), true);
        let said = en.further(&spill).unwrap();
        assert!(said.contains("met 3,892,125 states"), "{said}");
        assert!(said.contains("a larger `--max-spill`"), "{said}");
        assert!(said.contains("`--no-counts`"), "{said}");
        let said = tr.further(&spill).unwrap();
        assert!(
            said.contains("3.892.125 duruma") && said.contains("`--max-spill`"),
            "{said}"
        );
        let mut states = bounded(Some(Reached::States { states: 10 }), false);
        let said = en.further(&states).unwrap();
        assert!(
            said.contains("`--max-states`") && !said.contains("--no-counts"),
            "{said}"
        );
        assert!(!said.contains("symmetry"), "{said}");
        // Under `--no-symmetry`, the reduction is offered; without counts, no spill.
        states.symmetry.push(coordsim_model::SymmetryNote {
            group: "c".into(),
            members: 4,
            kept: Kept::TurnedOff,
        });
        let said = en.further(&states).unwrap();
        assert!(
            said.contains("the symmetry reduction (without `--no-symmetry`)"),
            "{said}"
        );
        let memory_reach = Exploration {
            bounded: Some(Bound::new(Reached::Memory { states: 10 })),
            ..states
        };
        let said = en.further(&memory_reach).unwrap();
        assert!(
            said.contains("`--max-memory`") && !said.contains("spill"),
            "{said}"
        );
        assert!(said.contains("without `--no-symmetry`"), "{said}");
        let time = bounded(Some(Reached::Time { states: 10 }), true);
        let said = en.further(&time).unwrap();
        assert!(
            said.contains("`--max-seconds`") && !said.contains("--no-counts"),
            "{said}"
        );
        let memory = bounded(Some(Reached::Memory { states: 10 }), true);
        let said = en.further(&memory).unwrap();
        assert!(
            said.contains("`--max-memory`") && said.contains("`--spill-from`"),
            "{said}"
        );
        let outcomes = bounded(Some(Reached::Outcomes { max: 10_000 }), true);
        assert!(en.further(&outcomes).unwrap().contains("at most 10,000"));
        // Every line is one sentence's words apart by single spaces, in both languages.
        for e in [&spill, &time, &memory, &outcomes, &memory_reach] {
            for say in [en, tr] {
                let said = say.further(e).unwrap();
                assert!(!said.contains("  ") && !said.contains('\n'), "{said}");
            }
        }
        assert_eq!(en.further(&bounded(Some(Reached::Cycle), true)), None);
        assert_eq!(en.further(&bounded(None, true)), None);
    }
}
