//! The numbers a step computes during a run: literals, names (`k`, `rows.id`, a register
//! read) and expressions over them, read straight off the run's state.

use coordsim_expr::Expr;

use crate::point::{Leaf, Operand, eval_run};
use crate::run::state::Sim;
use crate::syntax::spec::{Number, Var};

impl Sim<'_> {
    /// A number computed for `job` now: its actor's `i`, its `k` and `attempt`, what it read
    /// (NaN when it is not a number). A literal and a name, the commonest, are read here, in
    /// the step that asks; the rest in [`Sim::eval_more`].
    #[inline(always)]
    pub(crate) fn eval(&self, job: u32, number: &Number) -> f64 {
        match number {
            Number::Lit(x) => *x,
            Number::Expr(Expr::Var(variable), _) => self.var(job, *variable),
            _ => self.eval_more(job, number),
        }
    }

    /// A step's number lowered at its point ([`Operand`]) for `job` now: what
    /// [`Sim::eval`] gives for it, without walking an expression.
    #[inline(always)]
    pub(crate) fn operand(&self, job: u32, operand: &Operand) -> f64 {
        match operand {
            Operand::Lit(x) => *x,
            Operand::Var(variable) => self.var(job, *variable),
            Operand::Bin(operation, left, right) => {
                let left = self.leaf_of(job, *left);
                operation.apply(left, self.leaf_of(job, *right))
            }
            Operand::More(number) => self.eval_more(job, number),
        }
    }

    /// One side of an [`Operand::Bin`] for `job` now.
    #[inline(always)]
    fn leaf_of(&self, job: u32, leaf: Leaf) -> f64 {
        match leaf {
            Leaf::Lit(x) => x,
            Leaf::Var(variable) => self.var(job, variable),
        }
    }

    /// [`Sim::eval`] of an expression of more than a name, or a number chosen per point.
    #[inline(never)]
    fn eval_more(&self, job: u32, number: &Number) -> f64 {
        match number {
            Number::Lit(x) => *x,
            // Read straight off the run's state: no table of names built per number. One
            // operation on two names or numbers (`open + 1`) is computed here as the
            // evaluator would, without its recursion.
            Number::Expr(expression, _) => match expression {
                Expr::Var(variable) => self.var(job, *variable),
                Expr::Bin(operation, left, right) => {
                    match (self.leaf(job, left), self.leaf(job, right)) {
                        (Some(left), Some(right)) => operation.apply(left, right),
                        _ => self.eval_tree(job, expression),
                    }
                }
                _ => self.eval_tree(job, expression),
            },
            _ => {
                eval_run(number, &self.point.params, &self.vars(job, f64::NAN)).unwrap_or(f64::NAN)
            }
        }
    }

    /// `expression` for `job` now, by the evaluator.
    #[inline(never)]
    fn eval_tree(&self, job: u32, expression: &Expr<Var>) -> f64 {
        expression
            .eval(&|v| Some(self.var(job, v)))
            .unwrap_or(f64::NAN)
    }

    /// A number or a name for `job` now (`None`: an expression of more).
    #[inline(always)]
    fn leaf(&self, job: u32, expression: &Expr<Var>) -> Option<f64> {
        match expression {
            Expr::Num(number) => Some(*number),
            Expr::Var(variable) => Some(self.var(job, *variable)),
            _ => None,
        }
    }

    /// What `variable` is for `job` now (`read` is not a number here: a write's value is
    /// computed with its own).
    #[inline(always)]
    fn var(&self, job: u32, variable: Var) -> f64 {
        let job_index = job as usize;
        let job_state = &self.jobs[job_index];
        match variable {
            Var::Param(param) => self
                .point
                .params
                .get(param as usize)
                .copied()
                .unwrap_or(f64::NAN),
            Var::Index => f64::from(self.actors[job_state.actor as usize].index),
            Var::Rep => job_state.repetition as f64,
            Var::Attempt => f64::from(job_state.attempt),
            Var::Now => sim_core::ns_to_ms(self.now),
            Var::Read => f64::NAN,
            Var::Reg(register) => {
                self.tables.reads[job_index * self.registers.len() + register as usize]
            }
            Var::Msg(queue, what) => {
                let take = self.tables.taken[job_index * self.queues.len() + queue as usize];
                self.queues[queue as usize].number(take, what)
            }
            Var::Stored(store) => self.tables.stored[job_index * self.keys.len() + store as usize],
            Var::Winner => f64::from(job_state.winner),
            Var::Joined => f64::from(job_state.joined),
            Var::Reply => self.reply_of(job),
        }
    }
}
