//! Claim expressions: numbers, `+ - * /`, parentheses and names, e.g. `"6 * x_ms"`.

use std::fmt;

/// A parsed expression whose names are resolved to the caller's variables.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr<V> {
    /// A number.
    Num(f64),
    /// A variable.
    Var(V),
    /// Unary minus.
    Neg(Box<Expr<V>>),
    /// A binary operation.
    Bin(Op, Box<Expr<V>>, Box<Expr<V>>),
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// Why an expression did not parse: the message and the character offset in the expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// What is wrong.
    pub message: String,
    /// Where, in characters from the expression's start.
    pub offset: usize,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<V: Copy> Expr<V> {
    /// Evaluates with `get` giving each variable's value (`None`: empty, the result is `None`).
    pub fn eval(&self, get: &impl Fn(V) -> Option<f64>) -> Option<f64> {
        Some(match self {
            Expr::Num(x) => *x,
            Expr::Var(v) => get(*v)?,
            Expr::Neg(e) => -e.eval(get)?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(get)?, b.eval(get)?);
                match op {
                    Op::Add => a + b,
                    Op::Sub => a - b,
                    Op::Mul => a * b,
                    Op::Div => a / b,
                }
            }
        })
    }
}

/// Parses `text`, resolving each name with `resolve` (an `Err` names what is valid).
pub fn parse<V>(
    text: &str,
    resolve: &impl Fn(&str) -> Result<V, String>,
) -> Result<Expr<V>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser {
        chars: &chars,
        pos: 0,
        resolve,
    };
    let expr = p.sum()?;
    p.skip_space();
    if p.pos < chars.len() {
        return Err(p.error(format!("unexpected `{}`", chars[p.pos])));
    }
    Ok(expr)
}

struct Parser<'a, R> {
    chars: &'a [char],
    pos: usize,
    resolve: &'a R,
}

impl<V, R: Fn(&str) -> Result<V, String>> Parser<'_, R> {
    fn error(&self, message: String) -> ExprError {
        ExprError {
            message,
            offset: self.pos,
        }
    }

    fn skip_space(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.chars.get(self.pos).copied()
    }

    fn sum(&mut self) -> Result<Expr<V>, ExprError> {
        let mut left = self.product()?;
        while let Some(c @ ('+' | '-')) = self.peek() {
            self.pos += 1;
            let op = if c == '+' { Op::Add } else { Op::Sub };
            left = Expr::Bin(op, Box::new(left), Box::new(self.product()?));
        }
        Ok(left)
    }

    fn product(&mut self) -> Result<Expr<V>, ExprError> {
        let mut left = self.unary()?;
        while let Some(c @ ('*' | '/')) = self.peek() {
            self.pos += 1;
            let op = if c == '*' { Op::Mul } else { Op::Div };
            left = Expr::Bin(op, Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr<V>, ExprError> {
        match self.peek() {
            Some('-') => {
                self.pos += 1;
                Ok(Expr::Neg(Box::new(self.unary()?)))
            }
            Some('+') => {
                self.pos += 1;
                self.unary()
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<Expr<V>, ExprError> {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let inner = self.sum()?;
                if self.peek() != Some(')') {
                    return Err(self.error("expected `)`".into()));
                }
                self.pos += 1;
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => {
                let start = self.pos;
                while self
                    .chars
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '.' || *c == '_')
                {
                    self.pos += 1;
                }
                // An exponent: 1e3, 2.5E-2.
                if self
                    .chars
                    .get(self.pos)
                    .is_some_and(|c| *c == 'e' || *c == 'E')
                {
                    let save = self.pos;
                    self.pos += 1;
                    if self
                        .chars
                        .get(self.pos)
                        .is_some_and(|c| *c == '+' || *c == '-')
                    {
                        self.pos += 1;
                    }
                    if self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
                        while self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
                            self.pos += 1;
                        }
                    } else {
                        self.pos = save;
                    }
                }
                let text: String = self.chars[start..self.pos]
                    .iter()
                    .filter(|c| **c != '_')
                    .collect();
                text.parse().map(Expr::Num).map_err(|_| ExprError {
                    message: format!("`{text}` is not a number"),
                    offset: start,
                })
            }
            Some(c) if c.is_alphabetic() || c == '_' => {
                let start = self.pos;
                while self
                    .chars
                    .get(self.pos)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    self.pos += 1;
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                (self.resolve)(&name)
                    .map(Expr::Var)
                    .map_err(|message| ExprError {
                        message,
                        offset: start,
                    })
            }
            Some(c) => Err(self.error(format!(
                "unexpected `{c}`; expected a number, a name or `(`"
            ))),
            None => Err(self.error("unexpected end; expected a number, a name or `(`".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variables by index: `x_ms` = 50, `empty` = an empty cell.
    const NAMES: [&str; 2] = ["x_ms", "empty"];

    fn eval(text: &str) -> Option<f64> {
        let resolve = |name: &str| {
            NAMES
                .iter()
                .position(|n| *n == name)
                .ok_or_else(|| format!("unknown name `{name}`"))
        };
        let expr = parse(text, &resolve).unwrap();
        expr.eval(&|i: usize| (i == 0).then_some(50.0))
    }

    #[test]
    fn precedence_and_parentheses() {
        assert_eq!(eval("1 + 2 * 3"), Some(7.0));
        assert_eq!(eval("(1 + 2) * 3"), Some(9.0));
        assert_eq!(eval("8 - 4 - 2"), Some(2.0)); // left-associative
        assert_eq!(eval("8 / 4 / 2"), Some(1.0));
        assert_eq!(eval("-2 * -3"), Some(6.0));
        assert_eq!(eval("1e3 / 6"), Some(1000.0 / 6.0));
    }

    #[test]
    fn names_are_variables() {
        // N(N−1)/2 × step for N = 4: 6 × 50 = 300.
        assert_eq!(eval("4 * (4 - 1) / 2 * x_ms"), Some(300.0));
        assert_eq!(eval("empty + 1"), None);
    }

    fn parse_err(text: &str) -> ExprError {
        parse(text, &|n: &str| {
            if n == "x" {
                Ok(())
            } else {
                Err(format!("unknown name `{n}`"))
            }
        })
        .unwrap_err()
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(parse_err("2 * y").offset, 4);
        assert_eq!(parse_err("2 * y").message, "unknown name `y`");
        assert_eq!(parse_err("(x + 1").message, "expected `)`");
        assert_eq!(parse_err("x x").message, "unexpected `x`");
        assert!(parse_err("").message.starts_with("unexpected end"));
        assert!(parse_err("1.2.3").message.contains("not a number"));
    }
}
