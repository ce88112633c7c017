//! Go's `fmt.Sprintf` for template values: verbs `%v %s %d %q %t %f %e %g %x %X %c %%`,
//! flags `- + 0 space`, width and precision. A verb that does not fit its operand prints Go's
//! `%!d(string=abc)`; missing and extra operands print `%!d(MISSING)` and `%!(EXTRA ...)`.

use serde_json::Value;

use super::exec::print_value;

type V = Option<Value>;

struct Spec {
    minus: bool,
    plus: bool,
    zero: bool,
    space: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

fn go_type(v: &V) -> &'static str {
    match v {
        None | Some(Value::Null) => "<nil>",
        Some(Value::Bool(_)) => "bool",
        Some(Value::Number(n)) if n.is_f64() => "float64",
        Some(Value::Number(_)) => "int",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "[]interface {}",
        Some(Value::Object(_)) => "map[string]interface {}",
    }
}

fn bad(verb: char, v: &V) -> String {
    match v {
        None | Some(Value::Null) => format!("%!{verb}(<nil>)"),
        _ => format!("%!{verb}({}={})", go_type(v), print_value(v)),
    }
}

fn int_of(v: &V) -> Option<i64> {
    match v {
        Some(Value::Number(n)) if !n.is_f64() => n.as_i64(),
        _ => None,
    }
}

fn float_of(v: &V) -> Option<f64> {
    match v {
        Some(Value::Number(n)) if n.is_f64() => n.as_f64(),
        _ => None,
    }
}

fn pad(s: String, spec: &Spec, numeric: bool) -> String {
    let Some(w) = spec.width else { return s };
    let len = s.chars().count();
    if len >= w {
        return s;
    }
    let fill = w - len;
    if spec.minus {
        return s + &" ".repeat(fill);
    }
    if spec.zero && numeric {
        let (sign, digits) = match s.strip_prefix('-') {
            Some(d) => ("-", d.to_string()),
            None => match s.strip_prefix('+') {
                Some(d) => ("+", d.to_string()),
                None => ("", s.clone()),
            },
        };
        return format!("{sign}{}{digits}", "0".repeat(fill));
    }
    " ".repeat(fill) + &s
}

fn signed(s: String, spec: &Spec, negative: bool) -> String {
    if negative {
        s
    } else if spec.plus {
        format!("+{s}")
    } else if spec.space {
        format!(" {s}")
    } else {
        s
    }
}

fn one(verb: char, v: &V, spec: &Spec) -> String {
    match verb {
        'v' => pad(print_value(v), spec, false),
        's' => match v {
            Some(Value::String(s)) => {
                let s = match spec.precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s.clone(),
                };
                pad(s, spec, false)
            }
            Some(Value::Array(_)) | Some(Value::Object(_)) => pad(print_value(v), spec, false),
            _ => bad(verb, v),
        },
        'q' => match v {
            Some(Value::String(s)) => pad(format!("{s:?}"), spec, false),
            _ => bad(verb, v),
        },
        't' => match v {
            Some(Value::Bool(b)) => pad(b.to_string(), spec, false),
            _ => bad(verb, v),
        },
        'd' => match int_of(v) {
            Some(i) => pad(signed(i.to_string(), spec, i < 0), spec, true),
            None => bad(verb, v),
        },
        'x' | 'X' => {
            let text = match (int_of(v), v) {
                (Some(i), _) if i < 0 => format!("-{:x}", i.unsigned_abs()),
                (Some(i), _) => format!("{i:x}"),
                (None, Some(Value::String(s))) => {
                    s.bytes().map(|b| format!("{b:02x}")).collect::<String>()
                }
                _ => return bad(verb, v),
            };
            let text = if verb == 'X' {
                text.to_uppercase()
            } else {
                text
            };
            pad(text, spec, true)
        }
        'c' => match int_of(v)
            .and_then(|i| u32::try_from(i).ok())
            .and_then(char::from_u32)
        {
            Some(c) => pad(c.to_string(), spec, false),
            None => bad(verb, v),
        },
        'f' | 'F' | 'e' | 'g' => match float_of(v) {
            Some(f) => {
                let p = spec.precision;
                let text = match verb {
                    'e' => format!("{:.*e}", p.unwrap_or(6), f),
                    'g' => match p {
                        Some(p) => format!("{:.*}", p, f),
                        None => print_value(v),
                    },
                    _ => format!("{:.*}", p.unwrap_or(6), f),
                };
                pad(signed(text, spec, f < 0.0), spec, true)
            }
            None => bad(verb, v),
        },
        other => bad(other, v),
    }
}

pub fn sprintf(format: &str, args: &[V]) -> String {
    let mut out = String::new();
    let mut next = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec {
            minus: false,
            plus: false,
            zero: false,
            space: false,
            width: None,
            precision: None,
        };
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.minus = true,
                '+' => spec.plus = true,
                '0' => spec.zero = true,
                ' ' => spec.space = true,
                '#' => {}
                _ => break,
            }
            chars.next();
        }
        let digits = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let mut n: Option<usize> = None;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as usize));
                chars.next();
            }
            n
        };
        spec.width = digits(&mut chars);
        if chars.peek() == Some(&'.') {
            chars.next();
            spec.precision = Some(digits(&mut chars).unwrap_or(0));
        }
        // Go refuses widths and precisions over 1e6 the same way.
        const MAX: usize = 1_000_000;
        if spec.width.is_some_and(|w| w > MAX) {
            out.push_str("%!(BADWIDTH)");
            spec.width = None;
        }
        if spec.precision.is_some_and(|p| p > MAX) {
            out.push_str("%!(BADPREC)");
            spec.precision = None;
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        match args.get(next) {
            Some(v) => out.push_str(&one(verb, v, &spec)),
            None => out.push_str(&format!("%!{verb}(MISSING)")),
        }
        next += 1;
    }
    if next < args.len() {
        let extra: Vec<String> = args[next..]
            .iter()
            .map(|v| format!("{}={}", go_type(v), print_value(v)))
            .collect();
        out.push_str(&format!("%!(EXTRA {})", extra.join(", ")));
    }
    out
}
