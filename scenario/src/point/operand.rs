//! A step's number in the form the run computes it in: a literal, a name, or one operation
//! over two of them, told apart once here rather than on every step by walking the
//! expression; anything else is kept for the general evaluator.

use coordsim_expr::{Expr, Op};

use crate::syntax::spec::{Number, Var};

/// A literal or a name: one side of an [`Operand::Bin`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Leaf {
    Lit(f64),
    Var(Var),
}

/// A step's number lowered for the run. Each form computes what the general evaluator
/// does, with the same floating-point operations in the same order. Tagged by a byte of
/// its own (not packed into [`Number`]'s spare values): a step reads it with one load.
#[derive(Debug, Clone, PartialEq)]
#[repr(u8)]
pub(crate) enum Operand {
    Lit(f64),
    Var(Var),
    /// `open + 1`, `fresh + k`: one operation over two literals or names.
    Bin(Op, Leaf, Leaf),
    /// Any other number (a longer expression, a list per actor), by the evaluator.
    More(Number),
}

impl Operand {
    /// `number` lowered; a parameter's name is its value at the point (`params`, NaN past
    /// them, as the run reads it).
    pub(crate) fn lower(number: Number, params: &[f64]) -> Operand {
        let leaf = |expression: &Expr<Var>| match expression {
            Expr::Num(value) => Some(Leaf::Lit(*value)),
            Expr::Var(Var::Param(param)) => Some(Leaf::Lit(
                params.get(*param as usize).copied().unwrap_or(f64::NAN),
            )),
            Expr::Var(variable) => Some(Leaf::Var(*variable)),
            _ => None,
        };
        match &number {
            Number::Lit(value) => Operand::Lit(*value),
            Number::Expr(expression, _) => match expression {
                Expr::Bin(operation, left, right) => match (leaf(left), leaf(right)) {
                    (Some(left), Some(right)) => Operand::Bin(*operation, left, right),
                    _ => Operand::More(number),
                },
                other => match leaf(other) {
                    Some(Leaf::Lit(value)) => Operand::Lit(value),
                    Some(Leaf::Var(variable)) => Operand::Var(variable),
                    None => Operand::More(number),
                },
            },
            Number::By(..) | Number::Each(_) => Operand::More(number),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_and_one_operation_are_told_apart_once() {
        let parse = |text: &str| {
            let expression = coordsim_expr::parse(text, &|name: &str| match name {
                "k" => Ok(Var::Rep),
                "fresh" => Ok(Var::Param(0)),
                "open" => Ok(Var::Stored(1)),
                _ => Err(format!("no `{name}`")),
            })
            .expect("an expression");
            Operand::lower(Number::Expr(expression, text.into()), &[7.0])
        };
        assert_eq!(
            parse("fresh + k"),
            Operand::Bin(Op::Add, Leaf::Lit(7.0), Leaf::Var(Var::Rep))
        );
        assert_eq!(
            parse("open * 2"),
            Operand::Bin(Op::Mul, Leaf::Var(Var::Stored(1)), Leaf::Lit(2.0))
        );
        assert_eq!(parse("open"), Operand::Var(Var::Stored(1)));
        assert_eq!(parse("fresh"), Operand::Lit(7.0));
        assert!(matches!(parse("open + k + 1"), Operand::More(_)));
        assert!(matches!(parse("-open"), Operand::More(_)));
    }
}
