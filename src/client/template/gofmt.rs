//! Go's fmt for the verbs templates use: `%v %s %d %q %f %e %g %x %X %o %b %c %t %T %%`,
//! with flags (`-+# 0`), width and precision; and Go's float and string quoting forms.

use super::Value;

/// strconv.Quote.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => {
                if (c as u32) < 0x10000 {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The shortest decimal digits and exponent of `f` (like strconv's shortest mode):
/// (digits, dp) where value = 0.digits × 10^dp.
fn shortest_digits(f: f64) -> (String, i32) {
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let digits = digits.trim_end_matches('0').to_string();
    let digits = if digits.is_empty() {
        "0".to_string()
    } else {
        digits
    };
    (digits, exp + 1)
}

fn exp_suffix(exp: i32, upper: bool) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    let e = if upper { 'E' } else { 'e' };
    format!("{e}{sign}{:02}", exp.abs())
}

/// `%g` / `%v` of a float64 (precision None: shortest representation, `%e` form when the
/// exponent is < -4 or >= 6 for %v, or >= precision for %g with a precision).
pub fn format_float_g(f: f64, prec: Option<usize>, upper: bool) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    let neg = f.is_sign_negative() && f != 0.0;
    let (digits, dp, eprec) = match prec {
        None => {
            let (d, dp) = shortest_digits(f);
            // strconv's shortest %g decides the %e form with precision 6.
            (d, dp, 6)
        }
        Some(p) => {
            let p = p.max(1);
            let s = format!("{:.*e}", p - 1, f.abs());
            let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
            let exp: i32 = exp.parse().unwrap_or(0);
            let d: String = mant.chars().filter(|c| *c != '.').collect();
            let d = d.trim_end_matches('0').to_string();
            let d = if d.is_empty() { "0".to_string() } else { d };
            let mut eprec = p as i32;
            if eprec > d.len() as i32 && d.len() as i32 > exp {
                eprec = d.len() as i32;
            }
            (d, exp + 1, eprec)
        }
    };
    let exp = dp - 1;
    let body = if f == 0.0 {
        "0".to_string()
    } else if exp < -4 || exp >= eprec {
        let mut m = digits[..1].to_string();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        m + &exp_suffix(exp, upper)
    } else if dp <= 0 {
        format!("0.{}{}", "0".repeat((-dp) as usize), digits)
    } else if dp as usize >= digits.len() {
        format!("{}{}", digits, "0".repeat(dp as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

#[derive(Default, Clone, Copy)]
struct Flags {
    minus: bool,
    plus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
}

fn pad(s: String, width: Option<usize>, f: Flags, numeric: bool) -> String {
    let Some(w) = width else { return s };
    let len = s.chars().count();
    if len >= w {
        return s;
    }
    let fill = w - len;
    if f.minus {
        format!("{s}{}", " ".repeat(fill))
    } else if f.zero && numeric {
        let (sign, rest) = match s.chars().next() {
            Some(c @ ('-' | '+' | ' ')) => (c.to_string(), s[1..].to_string()),
            _ => (String::new(), s),
        };
        format!("{sign}{}{rest}", "0".repeat(fill))
    } else if f.zero {
        format!("{}{s}", "0".repeat(fill))
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

fn sign(neg: bool, f: Flags) -> &'static str {
    if neg {
        "-"
    } else if f.plus {
        "+"
    } else if f.space {
        " "
    } else {
        ""
    }
}

fn bad_verb(verb: char, v: &Value) -> String {
    format!("%!{verb}({}={})", v.type_name(), v.to_go_string())
}

fn fmt_int(i: i128, verb: char, f: Flags, prec: Option<usize>) -> String {
    let neg = i < 0;
    let a = i.unsigned_abs();
    let (mut digits, prefix) = match verb {
        'd' | 'v' => (a.to_string(), ""),
        'x' => (format!("{a:x}"), "0x"),
        'X' => (format!("{a:X}"), "0X"),
        'o' => (format!("{a:o}"), "0"),
        'O' => (format!("{a:o}"), "0o"),
        'b' => (format!("{a:b}"), "0b"),
        _ => (a.to_string(), ""),
    };
    if let Some(p) = prec {
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
        if p == 0 && a == 0 {
            digits.clear();
        }
    }
    let prefix = if f.sharp || verb == 'O' { prefix } else { "" };
    format!("{}{prefix}{digits}", sign(neg, f))
}

fn fmt_float(x: f64, verb: char, f: Flags, prec: Option<usize>) -> String {
    let neg = x.is_sign_negative();
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return format!("{}Inf", if x < 0.0 { "-" } else { "+" });
    }
    let a = x.abs();
    let body = match verb {
        'f' | 'F' => format!("{:.*}", prec.unwrap_or(6), a),
        'e' | 'E' => {
            let s = format!("{:.*e}", prec.unwrap_or(6), a);
            let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
            let e: i32 = e.parse().unwrap_or(0);
            format!("{m}{}", exp_suffix(e, verb == 'E'))
        }
        _ => format_float_g(a, prec, verb == 'G'),
    };
    format!("{}{body}", sign(neg, f))
}

fn fmt_one(verb: char, v: &Value, f: Flags, width: Option<usize>, prec: Option<usize>) -> String {
    let numeric = matches!(v, Value::Int(_) | Value::Uint(_) | Value::Float(_));
    let s = match (verb, v) {
        ('v', Value::Float(x)) => fmt_float(*x, 'g', f, prec),
        ('v', Value::Int(i)) => fmt_int(*i as i128, 'd', f, None),
        ('v', Value::Uint(u)) => fmt_int(*u as i128, 'd', f, None),
        ('v', Value::Str(s)) if f.sharp => go_quote(s),
        ('v', other) => other.to_go_string(),
        ('s', Value::Str(s)) => match prec {
            Some(p) => s.chars().take(p).collect(),
            None => s.clone(),
        },
        ('s', Value::List(_) | Value::Map(_) | Value::Struct(_) | Value::Bool(_) | Value::Nil) => {
            match v {
                Value::Bool(_) | Value::Nil => bad_verb(verb, v),
                _ => v.to_go_string(),
            }
        }
        ('q', Value::Str(s)) => {
            if f.sharp && !s.contains('`') {
                format!("`{s}`")
            } else {
                go_quote(s)
            }
        }
        ('q', Value::Int(i)) => match char::from_u32(*i as u32) {
            Some(c) => format!("'{}'", go_quote(&c.to_string()).trim_matches('"')),
            None => bad_verb(verb, v),
        },
        ('t', Value::Bool(b)) => b.to_string(),
        ('c', Value::Int(i)) => char::from_u32(*i as u32)
            .map(String::from)
            .unwrap_or_else(|| "\u{fffd}".into()),
        ('U', Value::Int(i)) => format!("U+{:04X}", i),
        ('d' | 'x' | 'X' | 'o' | 'O' | 'b', Value::Int(i)) => fmt_int(*i as i128, verb, f, prec),
        ('d' | 'x' | 'X' | 'o' | 'O' | 'b', Value::Uint(u)) => fmt_int(*u as i128, verb, f, prec),
        ('x' | 'X', Value::Str(s)) => {
            let hex: String = s.bytes().map(|b| format!("{b:02x}")).collect();
            if verb == 'X' {
                hex.to_uppercase()
            } else {
                hex
            }
        }
        ('f' | 'F' | 'e' | 'E' | 'g' | 'G', Value::Float(x)) => fmt_float(*x, verb, f, prec),
        ('x' | 'X', Value::Float(x)) => bad_verb(verb, &Value::Float(*x)),
        ('T', v) => v.type_name().to_string(),
        (_, Value::Missing) => format!("%!{verb}(<nil>)"),
        _ => bad_verb(verb, v),
    };
    pad(s, width, f, numeric)
}

/// fmt.Sprintf.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let mut argi = 0usize;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut f = Flags::default();
        while let Some(&fc) = chars.peek() {
            match fc {
                '-' => f.minus = true,
                '+' => f.plus = true,
                '#' => f.sharp = true,
                ' ' => f.space = true,
                '0' => f.zero = !f.minus,
                _ => break,
            }
            chars.next();
        }
        let num = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, argi: &mut usize| {
            if chars.peek() == Some(&'*') {
                chars.next();
                let n = match args.get(*argi) {
                    Some(Value::Int(i)) => Some((*i).max(0) as usize),
                    _ => None,
                };
                *argi += 1;
                return n;
            }
            let mut s = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_ascii_digit() {
                    s.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            s.parse().ok()
        };
        let width = num(&mut chars, &mut argi);
        let prec = if chars.peek() == Some(&'.') {
            chars.next();
            Some(num(&mut chars, &mut argi).unwrap_or(0))
        } else {
            None
        };
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        match args.get(argi) {
            Some(v) => out.push_str(&fmt_one(verb, v, f, width, prec)),
            None => out.push_str(&format!("%!{verb}(MISSING)")),
        }
        argi += 1;
    }
    if argi < args.len() {
        out.push_str("%!(EXTRA ");
        let extra: Vec<String> = args[argi..]
            .iter()
            .map(|v| format!("{}={}", v.type_name(), v.to_go_string()))
            .collect();
        out.push_str(&extra.join(", "));
        out.push(')');
    }
    out
}

/// fmt.Sprint: spaces between operands when neither side is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !matches!(a, Value::Str(_)) && !matches!(args[i - 1], Value::Str(_)) {
            out.push(' ');
        }
        out.push_str(&a.to_go_string());
    }
    out
}

/// fmt.Sprintln: always spaces, and a newline.
pub fn sprintln(args: &[Value]) -> String {
    let parts: Vec<String> = args.iter().map(Value::to_go_string).collect();
    format!("{}\n", parts.join(" "))
}
