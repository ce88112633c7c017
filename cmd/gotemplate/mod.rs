//! A subset of Go's `text/template`, for the CLI's `-t` flag: Nomad formats the same API
//! object `-json` prints with a template, so this engine runs over that JSON.
//!
//! Supported: text and `{{pipeline}}` actions, `{{- -}}` trim markers, `{{/* comments */}}`,
//! fields (`.A.B`, `$.A`, `$x.A`, `(pipe).A`), variables (`:=`, `=`), pipelines with `|`,
//! `if`/`else if`/`else`, `with`/`else`, `range` (arrays, maps in key order, integers) with
//! `$i, $e :=`, `break`, `continue`, string/raw-string/number/bool/nil literals, Go's builtin
//! functions (`and or not len index slice print printf println eq ne lt le gt ge html js
//! urlquery`) and some of the `sprig_` functions Nomad registers (see `sprig.rs`).
//! Not supported: `define`, `template`, `block` (a parse error says so), methods on values.
//!
//! Errors are Go's texts: `template: :1: unclosed action`,
//! `template: :1:2: executing "" at <len .ID>: error calling len: ...`.

mod exec;
mod lex;
mod parse;
mod printf;
mod sprig;

use serde_json::Value;

/// A template that parsed.
#[derive(Debug, Clone)]
pub struct Template {
    src: String,
    nodes: Vec<parse::Node>,
}

impl Template {
    /// Parse `src`; the error is Go's parse error text.
    pub fn parse(src: &str) -> Result<Template, String> {
        let nodes = parse::parse(src).map_err(|e| e.0)?;
        Ok(Template {
            src: src.to_string(),
            nodes,
        })
    }

    /// Execute over `data`; the error is Go's execution error text.
    pub fn execute(&self, data: &Value) -> Result<String, String> {
        exec::execute(&self.src, &self.nodes, data)
    }
}

/// Parse and execute in one step.
pub fn render(src: &str, data: &Value) -> Result<String, String> {
    Template::parse(src)?.execute(data)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::render;

    fn data() -> serde_json::Value {
        json!({
            "ID": "example",
            "Name": "web",
            "Count": 3,
            "Ratio": 0.5,
            "Stop": false,
            "Meta": {"owner": "ops", "env": "prod"},
            "Empty": "",
            "Nothing": null,
            "TaskGroups": [
                {"Name": "a", "Count": 1, "Tasks": [{"Name": "t1"}, {"Name": "t2"}]},
                {"Name": "b", "Count": 2, "Tasks": []}
            ],
            "Tags": ["x", "y"]
        })
    }

    #[test]
    fn renders_like_go_text_template() {
        let cases: &[(&str, &str)] = &[
            ("plain text", "plain text"),
            ("{{.ID}}", "example"),
            ("{{ .ID }}-{{.Count}}", "example-3"),
            ("{{.Ratio}} {{.Stop}} {{.Nothing}} {{.Missing}}", "0.5 false <nil> <no value>"),
            ("{{.Missing.Deeper}}", "<no value>"),
            ("{{.Meta.owner}}", "ops"),
            ("{{.Meta}}", "map[env:prod owner:ops]"),
            ("{{.Tags}}", "[x y]"),
            ("{{.}}", "map[Count:3 Empty: ID:example Meta:map[env:prod owner:ops] Name:web Nothing:<nil> Ratio:0.5 Stop:false Tags:[x y] TaskGroups:[map[Count:1 Name:a Tasks:[map[Name:t1] map[Name:t2]]] map[Count:2 Name:b Tasks:[]]]]"),
            ("{{range .TaskGroups}}{{.Name}}={{.Count}};{{end}}", "a=1;b=2;"),
            ("{{range $i, $g := .TaskGroups}}{{$i}}:{{$g.Name}} {{end}}", "0:a 1:b "),
            ("{{range $g := .TaskGroups}}{{$g.Name}}{{$.ID}}{{end}}", "aexamplebexample"),
            ("{{range $k, $v := .Meta}}{{$k}}={{$v}},{{end}}", "env=prod,owner=ops,"),
            ("{{range .TaskGroups}}{{range .Tasks}}{{.Name}} {{end}}{{end}}", "t1 t2 "),
            ("{{range .Nothing}}x{{else}}none{{end}}", "none"),
            ("{{range 3}}{{.}}{{end}}", "012"),
            ("{{range .Tags}}{{if eq . \"y\"}}{{break}}{{end}}{{.}}{{end}}", "x"),
            ("{{range .Tags}}{{if eq . \"x\"}}{{continue}}{{end}}{{.}}{{end}}", "y"),
            ("{{if .Stop}}stopped{{else}}running{{end}}", "running"),
            ("{{if .Empty}}a{{else if .Count}}b{{else}}c{{end}}", "b"),
            ("{{if not .Stop}}yes{{end}}", "yes"),
            ("{{with .Meta}}{{.env}}{{end}}", "prod"),
            ("{{with .Nothing}}x{{else}}no meta{{end}}", "no meta"),
            ("{{$n := .Name}}{{$n}}", "web"),
            ("{{$n := 1}}{{$n = 2}}{{$n}}", "2"),
            ("{{printf \"%s has %d groups\" .ID (len .TaskGroups)}}", "example has 2 groups"),
            ("{{printf \"%-8s|%5d|%05d|%.2f|%q|%t|%v|%x\" .Name .Count .Count .Ratio .ID .Stop .Tags 255}}", "web     |    3|00003|0.50|\"example\"|false|[x y]|ff"),
            ("{{printf \"%d\" .Name}}", "%!d(string=web)"),
            ("{{printf \"%s %s\" .Name}}", "web %!s(MISSING)"),
            ("{{printf \"%s\" .Name .ID}}", "web%!(EXTRA string=example)"),
            ("{{printf \"100%%\"}}", "100%"),
            ("{{len .TaskGroups}} {{len .ID}} {{len .Meta}}", "2 7 2"),
            ("{{index .Tags 1}} {{index .Meta \"owner\"}} {{index .TaskGroups 0 \"Name\"}}", "y ops a"),
            ("{{slice .ID 0 3}}", "exa"),
            ("{{eq .Count 3}} {{ne .Name \"web\"}} {{lt .Count 4}} {{ge .Ratio 0.5}} {{gt \"b\" \"a\"}}", "true false true true true"),
            ("{{eq .Name \"a\" \"web\"}}", "true"),
            ("{{and .Count .Name}} {{or .Empty .Name}} {{and .Stop .Name}}", "web web false"),
            ("{{.Name | printf \"%s!\"}}", "web!"),
            ("{{.TaskGroups | len}}", "2"),
            ("{{(index .TaskGroups 1).Name}}", "b"),
            ("a  {{- .ID -}}  b", "aexampleb"),
            ("a\n{{- /* gone */ -}}\nb", "ab"),
            ("{{/* comment */}}x", "x"),
            ("{{print \"a\" 1 2 \"b\"}}", "a1 2b"),
            ("{{println .ID .Count}}", "example 3\n"),
            ("{{html \"<a&b>\"}} {{urlquery \"a b&c\"}} {{js \"it's\"}}", "&lt;a&amp;b&gt; a+b%26c it\\'s"),
            ("{{`raw {{x}}`}}", "raw {{x}}"),
            ("{{\"tab\\there\"}}", "tab\there"),
            ("{{-3}} {{true}} {{nil}}", "-3 true <nil>"),
            ("{{sprig_upper .Name}} {{sprig_join \",\" .Tags}} {{sprig_default \"d\" .Empty}} {{.Name | sprig_replace \"w\" \"W\"}}", "WEB x,y d Web"),
            ("{{sprig_toJson .Meta}}", "{\"env\":\"prod\",\"owner\":\"ops\"}"),
            ("{{sprig_trunc 2 .ID}} {{sprig_hasPrefix \"ex\" .ID}} {{sprig_quote .Name}}", "ex true \"web\""),
        ];
        for (tmpl, want) in cases {
            assert_eq!(
                render(tmpl, &data()).as_deref(),
                Ok(*want),
                "template {tmpl:?}"
            );
        }
    }

    #[test]
    fn parse_errors_are_go_texts() {
        let cases: &[(&str, &str)] = &[
            ("{{.ID", "template: :1: unclosed action"),
            ("{{.ID}", "template: :1: unexpected \"}\" in operand"),
            ("{{if .ID}}x", "template: :1: unexpected EOF"),
            ("x{{end}}", "template: :1: unexpected {{end}}"),
            ("{{else}}", "template: :1: unexpected {{else}}"),
            (
                "{{nosuch .ID}}",
                "template: :1: function \"nosuch\" not defined",
            ),
            ("{{$x}}", "template: :1: undefined variable \"$x\""),
            ("{{}}", "template: :1: missing value for command"),
            ("\n\n{{.ID", "template: :3: unclosed action"),
            ("{{\"abc}}", "template: :1: unterminated quoted string"),
            ("{{break}}", "template: :1: {{break}} outside {{range}}"),
            (
                "{{define \"x\"}}{{end}}",
                "template: :1: {{define}} is not supported by this template engine",
            ),
            ("{{/* open", "template: :1: unclosed comment"),
        ];
        for (tmpl, want) in cases {
            assert_eq!(
                super::Template::parse(tmpl).map(|_| ()),
                Err(want.to_string()),
                "template {tmpl:?}"
            );
        }
    }

    #[test]
    fn execution_errors_name_the_place() {
        let cases: &[(&str, &str)] = &[
            (
                "{{len .Count}}",
                "template: :1:2: executing \"\" at <len .Count>: error calling len: len of type int",
            ),
            (
                "{{.ID.Foo}}",
                "template: :1:2: executing \"\" at <.ID.Foo>: can't evaluate field Foo in type string",
            ),
            (
                "{{.Nothing.Foo}}",
                "template: :1:2: executing \"\" at <.Nothing.Foo>: nil pointer evaluating interface {}.Foo",
            ),
            (
                "x\n {{index .Tags 5}}",
                "template: :2:3: executing \"\" at <index .Tags 5>: error calling index: index out of range: 5",
            ),
            (
                "{{eq .Count .Name}}",
                "template: :1:2: executing \"\" at <eq .Count .Name>: error calling eq: incompatible types for comparison",
            ),
            (
                "{{range .ID}}{{end}}",
                "template: :1:8: executing \"\" at <.ID>: range can't iterate over example",
            ),
            (
                "{{.ID .Name}}",
                "template: :1:2: executing \"\" at <.ID .Name>: can't give argument to non-function .ID",
            ),
        ];
        for (tmpl, want) in cases {
            assert_eq!(
                render(tmpl, &data()),
                Err(want.to_string()),
                "template {tmpl:?}"
            );
        }
    }

    #[test]
    fn hostile_input_never_panics() {
        let inputs = [
            "{{",
            "}}",
            "{{-",
            "-}}",
            "{{- -}}",
            "{{(",
            "{{)}}",
            "{{|}}",
            "{{.|}}",
            "{{$}}",
            "{{$:=}}",
            "{{range}}",
            "{{if}}{{end}}",
            "{{else if}}",
            "{{printf}}",
            "{{index}}",
            "{{slice .ID 5 1}}",
            "{{len}}",
            "{{\"\\q\"}}",
            "{{0x}}",
            "{{1e999}}",
            "{{é}}",
            "{{.é}}",
            "{{printf \"%\"}}",
            "{{printf \"%9999999999999999999d\" 1}}",
            "{{/**/}}",
            "{{`",
            "{{range $a, := .Tags}}{{end}}",
            "{{with}}",
            "{{end",
            "{{sprig_repeat 999999999 \"x\"}}",
        ];
        for i in inputs {
            let _ = render(i, &data());
        }
    }
}
