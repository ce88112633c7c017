//! A parsed job as Nomad's api structs hold it, printed the way Go's encoding/json prints
//! them: `nomad job run -output` and `POST /v1/jobs/parse`.
//!
//! Nomad's api structs keep optional fields as pointers, slices and maps, so what a job file
//! leaves unset prints as `null` (`"Type": null`) until the api's `Canonicalize` fills it;
//! value fields print their zero. `api::Job` holds plain values and merged defaults instead,
//! so this module combines the decoded job with the decoder's `Presence` record and, per api
//! struct, a table of Nomad's fields in declaration order (`output_fields`) saying which are
//! pointers and which attribute or block sets each. It must not change the job.

use serde_json::{Map, Value};

use super::output_fields::{Canon, Field, Src, Zero, JOB, TASK, TASK_GROUP, UPDATE};
use super::presence::Presence;
use crate::api::Job;

/// A JSON document whose objects keep Go's field order.
#[derive(Debug, Clone, PartialEq)]
pub enum GoJson {
    /// A leaf or a Go map (maps print with sorted keys, as Go does).
    Value(Value),
    Object(Vec<(&'static str, GoJson)>),
    Array(Vec<GoJson>),
}

/// The job as jobspec2 builds Nomad's api Job: what `nomad job run -output` prints (under a
/// `Job` key) and `POST /v1/jobs/parse` answers without `Canonicalize`.
pub fn uncanonicalized(job: &Job, presence: &Presence) -> GoJson {
    let ours = serde_json::to_value(job).unwrap_or(Value::Null);
    render(&ours, None, presence)
}

/// The api Job after Nomad's client-side `Canonicalize` (`POST /v1/jobs/parse` with
/// `Canonicalize`): fields that step fills come from `canonical` (the job after
/// `jobspec::canonicalize`), the others keep their form in `parsed`.
pub fn api_canonical(parsed: &Job, canonical: &Job, presence: &Presence) -> GoJson {
    let ours = serde_json::to_value(parsed).unwrap_or(Value::Null);
    let mut canon = serde_json::to_value(canonical).unwrap_or(Value::Null);
    // The server keeps the update strategy on the groups; the api's Canonicalize gives the
    // job Nomad's default strategy with the file's fields over it.
    if canonical.update.is_some() {
        let mut update =
            serde_json::to_value(super::policies::default_update()).unwrap_or_default();
        if let (Some(u), Some(written)) = (update.as_object_mut(), ours["Update"].as_object()) {
            for f in UPDATE {
                if let (Src::Attr(hcl, _), Some(v)) = (f.src, written.get(f.ours)) {
                    if presence.has(&format!("/job.0/update/{hcl}")) {
                        u.insert(f.ours.to_string(), v.clone());
                    }
                }
            }
        }
        canon["Update"] = update;
    }
    render(&ours, Some(&canon), presence)
}

/// A `-json` job file as Nomad's api Job holds it once encoding/json has read it: every
/// field of the api structs in Go's order, what the file gave (keys matched without regard
/// to case, as Go does; unknown keys dropped), and for the rest nil pointers as `null` and
/// value fields as their zero. `nomad job run -json -output` prints this.
pub fn from_api_json(job: &Value) -> GoJson {
    GoJson::Object(json_object(JOB, job))
}

/// `nomad job run -json -output`: `{"Job": ...}` with the job as `from_api_json` reads it.
pub fn run_output_json(job: &Value) -> String {
    GoJson::Object(vec![("Job", from_api_json(job))]).to_go_indent()
}

fn json_get<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    let m = v.as_object()?;
    m.get(key)
        .or_else(|| {
            m.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v)
        })
        .filter(|v| !v.is_null())
}

fn json_object(table: &'static [Field], v: &Value) -> Vec<(&'static str, GoJson)> {
    let mut out = Vec::with_capacity(table.len());
    for f in table {
        let given = json_get(v, f.go);
        let nested = match (f.go, f.src) {
            ("TaskGroups", _) => Some((TASK_GROUP, true)),
            (_, Src::Block(_, t) | Src::Object(t)) => Some((t, false)),
            (_, Src::Blocks(_, t) | Src::List(t)) => Some((t, true)),
            _ => None,
        };
        let value = match (nested, given) {
            (_, None) => match f.src {
                Src::OmitNull => continue,
                Src::Attr(_, z) | Src::Ours(z) | Src::Unset(z) => zero(z),
                _ => GoJson::Value(Value::Null),
            },
            (Some((t, true)), Some(Value::Array(items))) => GoJson::Array(
                items
                    .iter()
                    .map(|i| GoJson::Object(json_object(t, i)))
                    .collect(),
            ),
            (Some((t, false)), Some(obj @ Value::Object(_))) => GoJson::Object(json_object(t, obj)),
            (_, Some(other)) => GoJson::Value(other.clone()),
        };
        out.push((f.go, value));
    }
    out
}

/// `nomad job run -output`: the request body Nomad would send, `{"Job": ...}`.
pub fn run_output(job: &Job, presence: &Presence) -> String {
    GoJson::Object(vec![("Job", uncanonicalized(job, presence))]).to_go_indent()
}

fn render(ours: &Value, canon: Option<&Value>, presence: &Presence) -> GoJson {
    let w = Walk { presence };
    let mut fields = w.object(JOB, ours, canon, "/job.0");
    if let Some(slot) = fields.iter_mut().find(|(k, _)| *k == "TaskGroups") {
        slot.1 = w.task_groups(ours, canon);
    }
    GoJson::Object(fields)
}

struct Walk<'p> {
    presence: &'p Presence,
}

fn nth<'v>(v: Option<&'v Value>, key: &str, i: usize) -> Option<&'v Value> {
    v.and_then(|v| v.get(key)).and_then(|l| l.get(i))
}

impl Walk<'_> {
    /// jobspec2 turns each task written directly in the job into a group of its own (only a
    /// name and the task), listed before the job's groups.
    fn task_groups(&self, ours: &Value, canon: Option<&Value>) -> GoJson {
        let groups = match ours.get("TaskGroups").and_then(Value::as_array) {
            Some(g) if !g.is_empty() => g,
            _ => return GoJson::Value(Value::Null),
        };
        let mut lone_tasks = 0;
        while self.presence.has(&format!("/job.0/task.{lone_tasks}")) {
            lone_tasks += 1;
        }
        let mut out = Vec::with_capacity(groups.len());
        for (i, g) in groups.iter().enumerate() {
            let cg = nth(canon, "TaskGroups", i);
            if i < lone_tasks {
                out.push(self.lone_task_group(g, cg, i));
            } else {
                let path = format!("/job.0/group.{}", i - lone_tasks);
                out.push(GoJson::Object(self.object(TASK_GROUP, g, cg, &path)));
            }
        }
        GoJson::Array(out)
    }

    fn lone_task_group(&self, g: &Value, cg: Option<&Value>, i: usize) -> GoJson {
        let task_path = format!("/job.0/task.{i}");
        let mut fields = Vec::with_capacity(TASK_GROUP.len());
        for f in TASK_GROUP {
            let v = match f.go {
                "Name" => GoJson::Value(g.get("Name").cloned().unwrap_or(Value::Null)),
                "Tasks" => {
                    let task = nth(Some(g), "Tasks", 0).unwrap_or(&Value::Null);
                    let ct = nth(cg, "Tasks", 0);
                    GoJson::Array(vec![GoJson::Object(
                        self.object(TASK, task, ct, &task_path),
                    )])
                }
                // The group has no body in the file: only what the api's Canonicalize
                // fills is set.
                _ => self.field(f, g, cg, "/-"),
            };
            fields.push((f.go, v));
        }
        GoJson::Object(fields)
    }

    /// The fields of one api struct: `ours` is our JSON for the block at `path` as parsed,
    /// `canon` the same after canonicalization when that is wanted.
    fn object(
        &self,
        table: &'static [Field],
        ours: &Value,
        canon: Option<&Value>,
        path: &str,
    ) -> Vec<(&'static str, GoJson)> {
        let mut out = Vec::with_capacity(table.len());
        for f in table {
            let v = match (canon, f.canon) {
                (Some(c), Canon::Ours) => self.canonical(f, ours, c, path),
                (Some(c), Canon::Set(z)) => match f.src {
                    Src::Attr(hcl, _) if self.has(path, hcl) => leaf(mine(c, f), z),
                    _ => zero(z),
                },
                _ => self.field(f, ours, canon, path),
            };
            if matches!(f.src, Src::OmitNull) && v == GoJson::Value(Value::Null) {
                continue;
            }
            out.push((f.go, v));
        }
        out
    }

    fn has(&self, path: &str, name: &str) -> bool {
        self.presence.has(&format!("{path}/{name}"))
    }

    /// A field as parsed; `canon` only reaches the groups and tasks below it.
    fn field(&self, f: &Field, ours: &Value, canon: Option<&Value>, path: &str) -> GoJson {
        match f.src {
            Src::Attr(hcl, z) if self.has(path, hcl) => leaf(mine(ours, f), z),
            Src::Attr(_, z) | Src::Unset(z) => zero(z),
            Src::Block(hcl, table) => {
                let own = format!("{path}/{hcl}.0");
                match self.presence.value(&own).or(mine(ours, f)) {
                    Some(v) if self.has(path, hcl) => {
                        GoJson::Object(self.object(table, v, None, &own))
                    }
                    _ => GoJson::Value(Value::Null),
                }
            }
            Src::Blocks(hcl, table) => self.blocks(f, hcl, table, ours, canon, path),
            Src::Ours(z) => leaf(mine(ours, f), z),
            Src::OmitNull => leaf(mine(ours, f), Zero::Nil),
            Src::List(table) => match mine(ours, f).and_then(Value::as_array) {
                Some(list) if !list.is_empty() => GoJson::Array(
                    list.iter()
                        .map(|v| GoJson::Object(self.object(table, v, None, "/-")))
                        .collect(),
                ),
                _ => GoJson::Value(Value::Null),
            },
            Src::Object(table) => match mine(ours, f) {
                Some(v) => GoJson::Object(self.object(table, v, None, "/-")),
                None => GoJson::Value(Value::Null),
            },
        }
    }

    /// The blocks the file wrote, in order (canonicalization may add more, e.g. the server's
    /// implicit constraints, which the api's Canonicalize does not).
    fn blocks(
        &self,
        f: &Field,
        hcl: &str,
        table: &'static [Field],
        ours: &Value,
        canon: Option<&Value>,
        path: &str,
    ) -> GoJson {
        let Some(list) = mine(ours, f).and_then(Value::as_array) else {
            return GoJson::Value(Value::Null);
        };
        let out: Vec<GoJson> = list
            .iter()
            .enumerate()
            .filter(|(i, _)| self.presence.has(&format!("{path}/{hcl}.{i}")))
            .map(|(i, v)| {
                let c = canon.and_then(|c| mine(c, f)).and_then(|l| l.get(i));
                GoJson::Object(self.object(table, v, c, &format!("{path}/{hcl}.{i}")))
            })
            .collect();
        if out.is_empty() {
            GoJson::Value(Value::Null)
        } else {
            GoJson::Array(out)
        }
    }

    /// A field the api's Canonicalize fills: its canonical value, structs walked on.
    fn canonical(&self, f: &Field, ours: &Value, canon: &Value, path: &str) -> GoJson {
        match f.src {
            Src::Block(hcl, table) => match mine(canon, f) {
                Some(c) => {
                    let parsed = mine(ours, f).filter(|_| self.has(path, hcl));
                    let own = format!("{path}/{hcl}.0");
                    GoJson::Object(self.object(
                        table,
                        parsed.unwrap_or(&Value::Null),
                        Some(c),
                        &own,
                    ))
                }
                None => GoJson::Value(Value::Null),
            },
            Src::Blocks(hcl, table) => self.blocks(f, hcl, table, ours, Some(canon), path),
            Src::Attr(_, z) | Src::Ours(z) | Src::Unset(z) => leaf(mine(canon, f), z),
            _ => self.field(f, canon, None, path),
        }
    }
}

fn mine<'v>(v: &'v Value, f: &Field) -> Option<&'v Value> {
    v.get(f.ours).filter(|v| !v.is_null())
}

fn leaf(mine: Option<&Value>, z: Zero) -> GoJson {
    match mine {
        Some(v) => GoJson::Value(v.clone()),
        None => zero(z),
    }
}

fn zero(z: Zero) -> GoJson {
    GoJson::Value(match z {
        Zero::Nil => Value::Null,
        Zero::Str => Value::String(String::new()),
        Zero::Num => Value::from(0),
        Zero::Bool => Value::Bool(false),
    })
}

impl GoJson {
    /// As a serde_json value (objects lose Go's field order).
    pub fn to_value(&self) -> Value {
        match self {
            GoJson::Value(v) => v.clone(),
            GoJson::Array(items) => Value::Array(items.iter().map(GoJson::to_value).collect()),
            GoJson::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }

    /// Go's `json.MarshalIndent(v, "", "    ")`.
    pub fn to_go_indent(&self) -> String {
        let mut out = String::new();
        super::output_write::write_go(self, 0, &mut out);
        out
    }
}
