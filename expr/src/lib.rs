//! coordsim's expressions (claims, reference lines, derived parameters): numbers,
//! `+ - * / ^`, parentheses, names, the functions `sqrt`, `abs`, `ln`, `exp`, `floor`,
//! `ceil`, `min` and `max`, the queueing-theory ones, and the sum over a whole index
//! `sum(j, 1, n, 1 / j)`, e.g. `"6 * x_ms"`, `"sqrt(n) * max(a, b)"`. Names are
//! resolved once, at parse time, to a variable type of the caller's; nesting (64 levels) and
//! size (1,000 terms) are bounded, so no input can exhaust the stack. A crate of its own so
//! models can use it too.

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
    /// A function of its arguments.
    Call(Func, Vec<Expr<V>>),
    /// `sum(j, from, to, term)`: `[from, to, term]`, the term added up for each whole `j`
    /// from `from` to `to`.
    Sum(Box<[Expr<V>; 3]>),
    /// The index of an enclosing `sum`, by how deep that sum is among the sums around it
    /// (0: the outermost).
    Index(usize),
}

/// A function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `sqrt(x)`
    Sqrt,
    /// `abs(x)`
    Abs,
    /// `ln(x)`, the natural logarithm
    Ln,
    /// `exp(x)`
    Exp,
    /// `floor(x)`, the largest whole number at most x
    Floor,
    /// `ceil(x)`, the smallest whole number at least x
    Ceil,
    /// `min(a, b, …)`
    Min,
    /// `max(a, b, …)`
    Max,
    /// `mm1_wait(rho, s)`: M/M/1 mean wait in queue for a mean service time s, ρ·S / (1 − ρ).
    Mm1Wait,
    /// `md1_wait(rho, s)`: M/D/1 mean wait in queue, ρ·S / (2(1 − ρ)).
    Md1Wait,
    /// `mg1_wait(rho, s, cv)`: M/G/1 mean wait (Pollaczek–Khinchine),
    /// ρ·S·(1 + cv²) / (2(1 − ρ)).
    Mg1Wait,
    /// `erlang_c(servers, offered_erlangs)`: the probability an M/M/c arrival waits.
    ErlangC,
    /// `mmc_wait(servers, rho, s)`: M/M/c mean wait in queue, C(c, cρ)·S / (c(1 − ρ)).
    MmcWait,
}

/// Erlang C: the probability that an arrival to an M/M/c queue offered `a` erlangs waits,
/// through the Erlang B recursion (no factorials, no overflow). 1 when `a ≥ c`; NaN for a
/// server count that is not a whole number from 1 to a million.
pub fn erlang_c(c: f64, a: f64) -> f64 {
    if !(c >= 1.0 && c.fract() == 0.0 && c <= 1e6) || a.is_nan() || a < 0.0 {
        return f64::NAN;
    }
    if a >= c {
        return 1.0;
    }
    let mut b = 1.0;
    for k in 1..=c as u64 {
        b = a * b / (k as f64 + a * b);
    }
    c * b / (c - a * (1.0 - b))
}

/// `numerator / (divisor · (1 − ρ))` for 0 ≤ ρ < 1; infinite at ρ ≥ 1 (no steady state),
/// NaN below 0.
fn queue_wait(rho: f64, numerator: f64, divisor: f64) -> f64 {
    if rho.is_nan() || rho < 0.0 {
        f64::NAN
    } else if rho >= 1.0 {
        f64::INFINITY
    } else {
        numerator / (divisor * (1.0 - rho))
    }
}

impl Func {
    fn named(name: &str) -> Option<(Func, bool)> {
        // (function, takes any number of arguments ≥ 1 rather than exactly one)
        Some(match name {
            "sqrt" => (Func::Sqrt, false),
            "abs" => (Func::Abs, false),
            "ln" => (Func::Ln, false),
            "exp" => (Func::Exp, false),
            "floor" => (Func::Floor, false),
            "ceil" => (Func::Ceil, false),
            "min" => (Func::Min, true),
            "max" => (Func::Max, true),
            "mm1_wait" => (Func::Mm1Wait, false),
            "md1_wait" => (Func::Md1Wait, false),
            "mg1_wait" => (Func::Mg1Wait, false),
            "erlang_c" => (Func::ErlangC, false),
            "mmc_wait" => (Func::MmcWait, false),
            _ => return None,
        })
    }

    /// How many arguments a fixed-arity function takes (0: any number, at least one).
    fn arity(self) -> usize {
        match self {
            Func::Sqrt | Func::Abs | Func::Ln | Func::Exp | Func::Floor | Func::Ceil => 1,
            Func::Mm1Wait | Func::Md1Wait | Func::ErlangC => 2,
            Func::Mg1Wait | Func::MmcWait => 3,
            Func::Min | Func::Max => 0,
        }
    }
}

/// Deepest nesting of parentheses, calls and unary signs an expression may have.
pub const MAX_DEPTH: usize = 64;
/// Most numbers, names and operators an expression may have (its tree is evaluated, and
/// dropped, recursively: bounded size, bounded stack).
pub const MAX_NODES: usize = 1000;
/// Most terms the `sum`s of one evaluation add up, all together (nested sums multiply):
/// past it the value is not a number, so no expression can run for long.
pub const MAX_SUM_TERMS: u64 = 1_000_000;

/// Every function's name, as an error lists them.
const FUNCTIONS: &str = "sqrt, abs, ln, exp, floor, ceil, min, max, sum, mm1_wait, md1_wait, mg1_wait, erlang_c, mmc_wait";

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
    /// `^` (power, right-associative)
    Pow,
}

impl Op {
    /// `a op b`, as an expression computes it.
    #[inline]
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
            Op::Pow => a.powf(b),
        }
    }
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

/// Most characters of an expression an error echoes.
pub const EXCERPT_CHARS: usize = 80;

/// `text` for an error message: whole when short, else the [`EXCERPT_CHARS`] characters
/// around character `at` (where the error is), cut with `…`, so an input of any size is
/// echoed in a line of readable length.
pub fn excerpt(text: &str, at: usize) -> String {
    let len = text.chars().count();
    if len <= EXCERPT_CHARS {
        return text.to_string();
    }
    let start = at
        .saturating_sub(EXCERPT_CHARS / 2)
        .min(len - EXCERPT_CHARS);
    let end = start + EXCERPT_CHARS;
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(text.chars().skip(start).take(EXCERPT_CHARS));
    if end < len {
        out.push('…');
    }
    out
}

impl<V> Expr<V> {
    /// How many numbers, names, operators and calls it has: the work of one evaluation.
    pub fn nodes(&self) -> usize {
        1 + match self {
            Expr::Num(_) | Expr::Var(_) | Expr::Index(_) => 0,
            Expr::Neg(e) => e.nodes(),
            Expr::Bin(_, a, b) => a.nodes() + b.nodes(),
            Expr::Call(_, args) => args.iter().map(Expr::nodes).sum(),
            Expr::Sum(parts) => parts.iter().map(Expr::nodes).sum(),
        }
    }

    /// Whether some variable it names satisfies `test`.
    pub fn any_var(&self, test: &impl Fn(&V) -> bool) -> bool {
        match self {
            Expr::Num(_) | Expr::Index(_) => false,
            Expr::Var(v) => test(v),
            Expr::Neg(e) => e.any_var(test),
            Expr::Bin(_, a, b) => a.any_var(test) || b.any_var(test),
            Expr::Call(_, args) => args.iter().any(|a| a.any_var(test)),
            Expr::Sum(parts) => parts.iter().any(|a| a.any_var(test)),
        }
    }
}

/// The values of the `sum` indices in scope during an evaluation (outermost first), and how
/// many terms its sums have added so far.
#[derive(Default)]
struct Indices {
    values: Vec<f64>,
    terms: u64,
}

impl<V: Copy> Expr<V> {
    /// Evaluates with `get` giving each variable's value (`None`: empty, the result is `None`).
    pub fn eval(&self, get: &impl Fn(V) -> Option<f64>) -> Option<f64> {
        // No index is in scope yet: an empty list, which allocates only in a `sum`.
        self.eval_in(get, &mut Indices::default())
    }

    fn eval_in(&self, get: &impl Fn(V) -> Option<f64>, indices: &mut Indices) -> Option<f64> {
        Some(match self {
            Expr::Num(x) => *x,
            Expr::Var(v) => get(*v)?,
            Expr::Index(level) => indices.values.get(*level).copied().unwrap_or(f64::NAN),
            Expr::Neg(e) => -e.eval_in(get, indices)?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval_in(get, indices)?, b.eval_in(get, indices)?);
                op.apply(a, b)
            }
            Expr::Sum(parts) => {
                let [from, to, term] = &**parts;
                let (from, to) = (from.eval_in(get, indices)?, to.eval_in(get, indices)?);
                sum(from, to, indices, |indices| term.eval_in(get, indices))?
            }
            Expr::Call(f, args) => {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(a.eval_in(get, indices)?);
                }
                match f {
                    Func::Sqrt => values[0].sqrt(),
                    Func::Abs => values[0].abs(),
                    Func::Ln => values[0].ln(),
                    Func::Exp => values[0].exp(),
                    Func::Floor => values[0].floor(),
                    Func::Ceil => values[0].ceil(),
                    Func::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
                    Func::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    // Queueing theory: a load of 1 or more has no steady state (infinite).
                    Func::Mm1Wait => queue_wait(values[0], values[1] * values[0], 1.0),
                    Func::Md1Wait => queue_wait(values[0], values[1] * values[0], 2.0),
                    Func::Mg1Wait => queue_wait(
                        values[0],
                        values[1] * values[0] * (1.0 + values[2] * values[2]),
                        2.0,
                    ),
                    Func::ErlangC => erlang_c(values[0], values[1]),
                    Func::MmcWait => {
                        let (c, rho, s) = (values[0], values[1], values[2]);
                        queue_wait(rho, erlang_c(c, c * rho) * s, c)
                    }
                }
            }
        })
    }
}

/// `term` added up for each whole index from `from` to `to` (0 when `to < from`); not a
/// number when an end is not a whole number or the evaluation's terms would pass
/// [`MAX_SUM_TERMS`]; `None` when a term is empty.
fn sum(
    from: f64,
    to: f64,
    indices: &mut Indices,
    term: impl Fn(&mut Indices) -> Option<f64>,
) -> Option<f64> {
    if !(from.fract() == 0.0 && to.fract() == 0.0) {
        return Some(f64::NAN);
    }
    if to < from {
        return Some(0.0);
    }
    let count = to - from + 1.0;
    if count > (MAX_SUM_TERMS - indices.terms) as f64 {
        indices.terms = MAX_SUM_TERMS;
        return Some(f64::NAN);
    }
    indices.terms += count as u64;
    indices.values.push(from);
    let level = indices.values.len() - 1;
    let mut total = Some(0.0);
    for k in 0..count as u64 {
        indices.values[level] = from + k as f64;
        match (total, term(indices)) {
            (Some(t), Some(x)) => total = Some(t + x),
            _ => {
                total = None;
                break;
            }
        }
    }
    indices.values.pop();
    total
}

/// Parses `text`, resolving each name with `resolve` (an `Err` names what is valid).
pub fn parse<V>(
    text: &str,
    resolve: &impl Fn(&str) -> Result<V, String>,
) -> Result<Expr<V>, ExprError> {
    parse_names(text, &|name: &str| resolve(name).map(Expr::Var))
}

/// [`parse`], with `resolve` giving what each name stands for: a variable (`Expr::Var`),
/// or a number known as the expression is read (`Expr::Num`: which copy of a repeated
/// branch the expression is written in).
pub fn parse_names<V>(
    text: &str,
    resolve: &impl Fn(&str) -> Result<Expr<V>, String>,
) -> Result<Expr<V>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser {
        chars: &chars,
        pos: 0,
        depth: 0,
        nodes: 0,
        indices: Vec::new(),
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
    depth: usize,
    nodes: usize,
    /// The names of the `sum` indices in scope, outermost first.
    indices: Vec<String>,
    resolve: &'a R,
}

impl<V, R: Fn(&str) -> Result<Expr<V>, String>> Parser<'_, R> {
    fn error(&self, message: String) -> ExprError {
        ExprError {
            message,
            offset: self.pos,
        }
    }

    /// One level deeper (a parenthesis, a call, a sign, a power): refused past `MAX_DEPTH`.
    fn deeper(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!(
                "the expression nests more than {MAX_DEPTH} levels deep"
            )));
        }
        Ok(())
    }

    /// One more term or operator: refused past `MAX_NODES`.
    fn node(&mut self) -> Result<(), ExprError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.error(format!(
                "the expression has more than {MAX_NODES} terms and operators"
            )));
        }
        Ok(())
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
            self.node()?;
            left = Expr::Bin(op, Box::new(left), Box::new(self.product()?));
        }
        Ok(left)
    }

    fn product(&mut self) -> Result<Expr<V>, ExprError> {
        let mut left = self.unary()?;
        while let Some(c @ ('*' | '/')) = self.peek() {
            self.pos += 1;
            let op = if c == '*' { Op::Mul } else { Op::Div };
            self.node()?;
            left = Expr::Bin(op, Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr<V>, ExprError> {
        match self.peek() {
            Some(c @ ('-' | '+')) => {
                self.pos += 1;
                self.node()?;
                self.deeper()?;
                let inner = self.unary()?;
                self.depth -= 1;
                Ok(if c == '-' {
                    Expr::Neg(Box::new(inner))
                } else {
                    inner
                })
            }
            _ => self.power(),
        }
    }

    /// `a ^ b`, right-associative, binding tighter than a sign: `-2 ^ 2` is −4, `2 ^ -1` 0.5.
    fn power(&mut self) -> Result<Expr<V>, ExprError> {
        let base = self.atom()?;
        if self.peek() == Some('^') {
            self.pos += 1;
            self.node()?;
            self.deeper()?;
            let exponent = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Bin(Op::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr<V>, ExprError> {
        self.node()?;
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.deeper()?;
                let inner = self.sum()?;
                self.depth -= 1;
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
                let number: f64 = text.parse().map_err(|_| ExprError {
                    message: format!("`{text}` is not a number"),
                    offset: start,
                })?;
                // A whole number a double cannot hold (past 2^53, between its steps) would be
                // read as another, silently: refused where it is written.
                if let Ok(whole) = text.parse::<u128>()
                    && number as u128 != whole
                {
                    return Err(ExprError {
                        message: format!(
                            "`{text}` is past 2^53 = 9007199254740992 in size, where not every whole number is exact (it would be read as {number}); write a smaller one"
                        ),
                        offset: start,
                    });
                }
                Ok(Expr::Num(number))
            }
            Some(c) if c.is_alphabetic() || c == '_' => {
                let start = self.pos;
                // A dotted name (`counter.lost_updates`, a composed model's metric) continues
                // over a `.` followed by a letter or `_`.
                loop {
                    match self.chars.get(self.pos) {
                        Some(c) if c.is_alphanumeric() || *c == '_' => self.pos += 1,
                        Some('.')
                            if self
                                .chars
                                .get(self.pos + 1)
                                .is_some_and(|c| c.is_alphabetic() || *c == '_') =>
                        {
                            self.pos += 1
                        }
                        _ => break,
                    }
                }
                let name: String = self.chars[start..self.pos].iter().collect();
                if self.peek() == Some('(') {
                    return self.call(&name, start);
                }
                // A `sum`'s index hides a variable of its name within the sum's term.
                if let Some(level) = self.indices.iter().rposition(|n| *n == name) {
                    return Ok(Expr::Index(level));
                }
                (self.resolve)(&name).map_err(|message| ExprError {
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

impl<V, R: Fn(&str) -> Result<Expr<V>, String>> Parser<'_, R> {
    /// `name(args…)`, the parenthesis next.
    fn call(&mut self, name: &str, start: usize) -> Result<Expr<V>, ExprError> {
        if name == "sum" {
            return self.indexed_sum(start);
        }
        let Some((func, many)) = Func::named(name) else {
            return Err(ExprError {
                message: format!("unknown function `{name}`; functions: {FUNCTIONS}"),
                offset: start,
            });
        };
        self.pos += 1; // (
        self.deeper()?;
        let mut args = vec![self.sum()?];
        while self.peek() == Some(',') {
            self.pos += 1;
            args.push(self.sum()?);
        }
        self.depth -= 1;
        if self.peek() != Some(')') {
            return Err(self.error("expected `,` or `)`".into()));
        }
        self.pos += 1;
        if !many && args.len() != func.arity() {
            let want = match func.arity() {
                1 => "one argument".to_string(),
                n => format!("{n} arguments"),
            };
            return Err(ExprError {
                message: format!("`{name}` takes {want}, got {}", args.len()),
                offset: start,
            });
        }
        Ok(Expr::Call(func, args))
    }

    /// `sum(j, from, to, term)`, after its name: `j` a name of the sum's own, which the
    /// term reads (hiding a variable of that name there); `from` and `to` read only what
    /// is around the sum.
    fn indexed_sum(&mut self, start: usize) -> Result<Expr<V>, ExprError> {
        const FORM: &str = "`sum` takes an index's name, its first and last whole values and the term to add up: `sum(j, 1, n, 1 / j)`";
        let form = |offset| ExprError {
            message: FORM.to_string(),
            offset,
        };
        self.pos += 1; // (
        self.deeper()?;
        self.node()?;
        self.skip_space();
        let index_at = self.pos;
        while (self.chars.get(self.pos)).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
            self.pos += 1;
        }
        let index: String = self.chars[index_at..self.pos].iter().collect();
        if !index.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            return Err(form(index_at));
        }
        if Func::named(&index).is_some() || index == "sum" {
            return Err(ExprError {
                message: format!("`{index}` is a function; name the sum's index otherwise"),
                offset: index_at,
            });
        }
        let mut parts = Vec::with_capacity(3);
        for part in 0..3 {
            if self.peek() != Some(',') {
                return Err(form(self.pos));
            }
            self.pos += 1;
            if part == 2 {
                self.indices.push(index.clone());
            }
            parts.push(self.sum()?);
        }
        self.indices.pop();
        self.depth -= 1;
        if self.peek() != Some(')') {
            return Err(form(self.pos));
        }
        self.pos += 1;
        let parts: [Expr<V>; 3] = parts.try_into().map_err(|_| form(start))?;
        Ok(Expr::Sum(Box::new(parts)))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn nodes_count_every_number_name_operator_and_call() {
        // 1 + 2 * x: two numbers, a name, two operators; max(a, -b): a call, two names, a sign.
        let e: super::Expr<u8> = super::parse("1 + 2 * x", &|_| Ok(0)).unwrap();
        assert_eq!(e.nodes(), 5);
        let e: super::Expr<u8> = super::parse("max(a, -b)", &|_| Ok(0)).unwrap();
        assert_eq!(e.nodes(), 4);
    }

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
    fn products_bind_tighter_than_sums_and_operators_associate_left() {
        assert_eq!(eval("1 + 2 * 3"), Some(7.0));
        assert_eq!(eval("(1 + 2) * 3"), Some(9.0));
        assert_eq!(eval("8 - 4 - 2"), Some(2.0)); // left-associative
        assert_eq!(eval("8 / 4 / 2"), Some(1.0));
        assert_eq!(eval("-2 * -3"), Some(6.0));
        assert_eq!(eval("1e3 / 6"), Some(1000.0 / 6.0));
    }

    #[test]
    fn powers_are_right_associative_and_functions_check_their_arguments() {
        assert_eq!(eval("2 ^ 10"), Some(1024.0));
        assert_eq!(eval("2 ^ 3 ^ 2"), Some(512.0)); // right-associative: 2^9
        assert_eq!(eval("-2 ^ 2"), Some(-4.0)); // the sign binds looser
        assert_eq!(eval("2 ^ -1"), Some(0.5));
        assert_eq!(eval("sqrt(16) + abs(-3)"), Some(7.0));
        assert_eq!(eval("min(3, x_ms, 7) + max(1, 2)"), Some(5.0));
        assert_eq!(eval("ln(exp(2))"), Some(2.0));
        assert_eq!(
            parse_err("sqrt(1, 2)").message,
            "`sqrt` takes one argument, got 2"
        );
        assert!(
            parse_err("log(2)")
                .message
                .starts_with("unknown function `log`")
        );
    }

    #[test]
    fn queueing_theory_matches_published_values() {
        // M/M/1 at ρ = 0.5, S = 1: Wq = ρS / (1 − ρ) = 1. M/D/1 (lesson 003's 6 ms at ρ = 0.5):
        // half of M/M/1, 3 ms. M/G/1 with cv = 1 is M/M/1, with cv = 0 M/D/1.
        assert_eq!(eval("mm1_wait(0.5, 1)"), Some(1.0));
        assert_eq!(eval("md1_wait(0.5, 6)"), Some(3.0));
        assert_eq!(eval("mg1_wait(0.8, 6, 1)"), eval("mm1_wait(0.8, 6)"));
        assert_eq!(eval("mg1_wait(0.8, 6, 0)"), eval("md1_wait(0.8, 6)"));
        // Erlang C by hand: c = 2, a = 1: B(1) = 1/2, B(2) = 0.5 / 2.5 = 0.2,
        // C = 2 × 0.2 / (2 − 1 × 0.8) = 1/3. Published tables: C(10, 8) = 0.4092.
        assert!((erlang_c(2.0, 1.0) - 1.0 / 3.0).abs() < 1e-15);
        assert!(
            (erlang_c(10.0, 8.0) - 0.4092).abs() < 5e-5,
            "{}",
            erlang_c(10.0, 8.0)
        );
        // One server: the probability of waiting is ρ.
        assert!((erlang_c(1.0, 0.7) - 0.7).abs() < 1e-15);
        // M/M/c with one server is M/M/1; two at ρ = 0.5 (a = 1): C = 1/3, S = 1, so
        // Wq = (1/3) / (2 × 0.5) = 1/3.
        assert!((eval("mmc_wait(1, 0.5, 1)").unwrap() - 1.0).abs() < 1e-15);
        assert!((eval("mmc_wait(2, 0.5, 1)").unwrap() - 1.0 / 3.0).abs() < 1e-15);
        // No steady state at ρ ≥ 1; a fractional server count is no queue.
        assert_eq!(eval("mm1_wait(1, 6)"), Some(f64::INFINITY));
        assert!(eval("erlang_c(2.5, 1)").unwrap().is_nan());
        assert_eq!(
            parse_err("mm1_wait(0.5)").message,
            "`mm1_wait` takes 2 arguments, got 1"
        );
    }

    #[test]
    fn nesting_is_bounded_and_long_sums_are_fine() {
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse_err(&deep).message.contains("nests more than 64"));
        let signs = format!("{}1", "-".repeat(50_000));
        assert!(parse_err(&signs).message.contains("nests more than 64"));
        let powers = vec!["2"; 10_000].join("^");
        assert!(parse_err(&powers).message.contains("nests more than 64"));
        // A long flat sum nests nothing but is bounded in size: 500 terms are fine, 100,000
        // are an error, not a stack overflow when evaluated.
        let sum = vec!["1"; 500].join(" + ");
        assert_eq!(eval(&sum), Some(500.0));
        let sum = vec!["1"; 100_000].join(" + ");
        assert!(parse_err(&sum).message.contains("more than 1000 terms"));
        assert_eq!(
            eval(&format!("{}1{}", "(".repeat(60), ")".repeat(60))),
            Some(1.0)
        );
    }

    #[test]
    fn floor_and_ceil_round_to_whole_numbers() {
        assert_eq!(eval("floor(2.7) + ceil(2.1)"), Some(5.0));
        assert_eq!(eval("floor(-2.5)"), Some(-3.0));
        // The nearest rank of the p99 of 250 samples: ⌈0.99 × 250⌉ = ⌈247.5⌉ = 248.
        assert_eq!(eval("ceil(0.99 * 250)"), Some(248.0));
        assert_eq!(
            parse_err("floor(1, 2)").message,
            "`floor` takes one argument, got 2"
        );
    }

    #[test]
    fn a_sum_adds_its_term_over_a_whole_index() {
        // 1 + 2 + … + 10 = 55; H_4 = 1 + 1/2 + 1/3 + 1/4 = 25/12.
        assert_eq!(eval("sum(j, 1, 10, j)"), Some(55.0));
        assert!((eval("sum(j, 1, 4, 1 / j)").unwrap() - 25.0 / 12.0).abs() < 1e-15);
        // The mean of the 2nd smallest of 5 exponentials of mean 10 (scatter-gather, k = 2):
        // 10 × (1/5 + 1/4) = 4.5.
        assert!((eval("10 * sum(j, 5 - 2 + 1, 5, 1 / j)").unwrap() - 4.5).abs() < 1e-12);
        // The ends read the names around the sum; the index hides a variable of its name.
        assert_eq!(eval("sum(j, 1, x_ms / 10, 2)"), Some(10.0));
        assert_eq!(eval("sum(x_ms, 1, 3, x_ms) + x_ms"), Some(6.0 + 50.0));
        // Nested: Σ_{a=1..3} Σ_{b=1..a} b = 1 + 3 + 6 = 10.
        assert_eq!(eval("sum(a, 1, 3, sum(b, 1, a, b))"), Some(10.0));
        // No terms: 0. An end that is not whole, or too many terms, is not a number.
        assert_eq!(eval("sum(j, 3, 2, j)"), Some(0.0));
        assert!(eval("sum(j, 1, 2.5, j)").unwrap().is_nan());
        assert!(eval("sum(j, 1, 1e7, j)").unwrap().is_nan());
        // 1,000 × 1,000 terms is the whole budget; one more is past it.
        assert_eq!(eval("sum(a, 1, 1000, sum(b, 1, 999, 0))"), Some(0.0));
        assert!(
            eval("sum(a, 1, 1000, sum(b, 1, 1000, 0))")
                .unwrap()
                .is_nan()
        );
        // An empty variable in the term empties the sum.
        assert_eq!(eval("sum(j, 1, 3, empty)"), None);
    }

    #[test]
    fn a_sum_written_otherwise_says_its_form() {
        let form = "`sum` takes an index's name, its first and last whole values and the term to add up: `sum(j, 1, n, 1 / j)`";
        assert_eq!(parse_err("sum(1, 2)").message, form);
        assert_eq!(parse_err("sum(j, 1, 2)").message, form);
        assert_eq!(parse_err("sum(j, 1, 2, j, 4)").message, form);
        assert_eq!(
            parse_err("sum(max, 1, 2, 3)").message,
            "`max` is a function; name the sum's index otherwise"
        );
        // The index is the term's alone: the ends cannot read it, nor what follows the sum.
        assert_eq!(parse_err("sum(j, j, 2, j)").message, "unknown name `j`");
        assert_eq!(parse_err("sum(j, 1, 2, j) + j").message, "unknown name `j`");
        assert!(
            parse_err("sums(1)")
                .message
                .contains("floor, ceil, min, max, sum,")
        );
    }

    #[test]
    fn names_are_variables() {
        // N(N−1)/2 × step for N = 4: 6 × 50 = 300.
        assert_eq!(eval("4 * (4 - 1) / 2 * x_ms"), Some(300.0));
        assert_eq!(eval("empty + 1"), None);
    }

    #[test]
    fn dotted_names_are_one_name() {
        let names = |text: &str| {
            let seen = std::cell::RefCell::new(Vec::new());
            parse(text, &|n: &str| {
                seen.borrow_mut().push(n.to_string());
                Ok(())
            })
            .unwrap();
            seen.into_inner()
        };
        assert_eq!(names("counter.lost_updates * 2"), ["counter.lost_updates"]);
        // A dot before a digit is not part of a name: `x.5` is `x` then a stray `.5`.
        assert!(parse("x.5", &|_: &str| Ok(())).is_err());
        assert_eq!(names("a.b + c._d"), ["a.b", "c._d"]);
    }

    #[test]
    fn a_name_may_stand_for_a_number_known_as_it_is_read() {
        // `c` is 3 where this expression is written: folded in, not a variable.
        let e: Expr<u8> = parse_names("2 * c + x", &|n: &str| match n {
            "c" => Ok(Expr::Num(3.0)),
            _ => Ok(Expr::Var(0)),
        })
        .unwrap();
        assert_eq!(e.eval(&|_| Some(10.0)), Some(16.0));
        assert!(!e.any_var(&|_| false));
        assert!(e.any_var(&|v| *v == 0));
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
    fn a_long_expression_is_echoed_around_its_error() {
        assert_eq!(excerpt("1 + x", 4), "1 + x");
        let long = format!("{}y{}", "1+".repeat(100), "+1".repeat(100));
        // The 80 characters from 40 before the `y` (at 200): 160 … 239.
        let shown = excerpt(&long, 200);
        assert_eq!(
            shown,
            format!("…{}y{}…", "1+".repeat(20), "+1".repeat(19) + "+")
        );
        assert_eq!(shown.chars().count(), EXCERPT_CHARS + 2);
        // Near either end, the window stays whole and is cut on one side.
        assert_eq!(excerpt(&long, 0), format!("{}…", "1+".repeat(40)));
        assert_eq!(excerpt(&long, 400), format!("…{}", "+1".repeat(40)));
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
