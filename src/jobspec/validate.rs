//! Nomad's job validation (`structs.Job.Validate` plus the register endpoint's checks) and
//! warnings, with error texts as Nomad words them. Expects a canonicalized job, as Nomad's
//! server validates only after its canonicalizing mutators ran.

use std::collections::BTreeMap;
use std::fmt;

use crate::api::{
    Job, LogConfig, Resources, Task, TaskGroup, JOB_TYPE_BATCH, JOB_TYPE_SERVICE,
    JOB_TYPE_SYSBATCH, JOB_TYPE_SYSTEM,
};

use super::duration::format_go_duration as dur;
use super::validate_blocks;
use super::validate_policies::{
    constraint_errors, migrate_errors, reschedule_errors, restart_errors, update_errors,
};
use super::validate_services;

/// Every problem found in a job, printed exactly like Nomad's go-multierror list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// Top-level problems; nested ones (a group's, a task's) are already rendered into the
    /// text of their parent entry, as Nomad renders them.
    pub errors: Vec<String>,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_multierror(&self.errors))
    }
}

impl std::error::Error for ValidationError {}

/// go-multierror's ListFormatFunc.
pub fn format_multierror(errs: &[String]) -> String {
    if errs.len() == 1 {
        return format!("1 error occurred:\n\t* {}\n\n", errs[0]);
    }
    let points: Vec<String> = errs.iter().map(|e| format!("* {e}")).collect();
    format!(
        "{} errors occurred:\n\t{}\n\n",
        errs.len(),
        points.join("\n\t")
    )
}

/// Nomad's warning list as the CLI and the register response print it
/// (helper.MergeMultierrorWarnings): "1 warning:\n\n* ...".
pub fn format_warnings(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let noun = if warnings.len() == 1 {
        "warning"
    } else {
        "warnings"
    };
    let points: Vec<String> = warnings.iter().map(|w| format!("* {w}")).collect();
    format!("{} {noun}:\n\n{}", warnings.len(), points.join("\n"))
}

/// Nomad's default `job_max_priority`.
pub const JOB_MAX_PRIORITY: i32 = 100;
pub const JOB_MIN_PRIORITY: i32 = 1;

/// Validates a job; `Ok` carries the warnings.
pub fn validate(job: &Job) -> Result<Vec<String>, ValidationError> {
    let mut errs = job_errors(job);
    if job.r#type == "_core" {
        errs.push("job type cannot be core".to_string());
    }
    if job.payload.as_ref().is_some_and(|p| !p.is_null()) {
        errs.push("job can't be submitted with a payload, only dispatched".to_string());
    }
    if job.priority < JOB_MIN_PRIORITY || job.priority > JOB_MAX_PRIORITY {
        errs.push(format!(
            "job priority must be between [{JOB_MIN_PRIORITY}, {JOB_MAX_PRIORITY}]"
        ));
    }
    if errs.is_empty() {
        Ok(warnings(job))
    } else {
        Err(ValidationError { errors: errs })
    }
}

fn job_errors(j: &Job) -> Vec<String> {
    let mut e = Vec::new();
    if j.region.is_empty() && j.multiregion.is_none() {
        e.push("Missing job region".to_string());
    }
    if j.id.is_empty() {
        e.push("Missing job ID".to_string());
    } else if j.id.contains(' ') {
        e.push("Job ID contains a space".to_string());
    } else if j.id.contains('\0') {
        e.push("Job ID contains a null character".to_string());
    }
    if j.name.is_empty() {
        e.push("Missing job name".to_string());
    } else if j.name.contains('\0') {
        e.push("Job Name contains a null character".to_string());
    }
    if j.namespace.is_empty() {
        e.push("Job must be in a namespace".to_string());
    }
    match j.r#type.as_str() {
        "_core" | JOB_TYPE_SERVICE | JOB_TYPE_BATCH | JOB_TYPE_SYSTEM | JOB_TYPE_SYSBATCH => {}
        "" => e.push("Missing job type".to_string()),
        other => e.push(format!("Invalid job type: {other:?}")),
    }
    match &j.datacenters {
        Some(dcs) if !dcs.is_empty() => {
            for dc in dcs {
                if dc.is_empty() {
                    e.push("Job datacenter must be non-empty string".to_string());
                }
            }
        }
        _ if j.multiregion.is_none() => e.push("Missing job datacenters".to_string()),
        _ => {}
    }
    if j.task_groups.is_empty() {
        e.push("Missing job task groups".to_string());
    }
    for (i, c) in j.constraints.iter().flatten().enumerate() {
        if let Some(err) = constraint_errors(c) {
            e.push(format!("Constraint {} validation failed: {err}", i + 1));
        }
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (idx, tg) in j.task_groups.iter().enumerate() {
        if tg.name.is_empty() {
            e.push(format!("Job task group {} missing name", idx + 1));
        } else if let Some(prev) = seen.get(tg.name.as_str()) {
            e.push(format!(
                "Job task group {} redefines '{}' from group {}",
                idx + 1,
                tg.name,
                prev + 1
            ));
        } else {
            seen.insert(&tg.name, idx);
        }
        if tg.shutdown_delay.is_some_and(|d| d < 0) {
            e.push("ShutdownDelay must be a positive value".to_string());
        }
        if j.r#type == JOB_TYPE_SYSTEM && tg.count > 1 {
            e.push(format!(
                "Job task group {} has count {}. Count cannot exceed 1 with system scheduler",
                tg.name, tg.count
            ));
        }
    }
    for tg in &j.task_groups {
        let ge = group_errors(j, tg);
        if !ge.is_empty() {
            e.push(format!(
                "Task group {} validation failed: {}",
                tg.name,
                format_multierror(&ge)
            ));
        }
    }
    e.extend(validate_blocks::multiregion_error(j));
    e
}

fn group_errors(j: &Job, tg: &TaskGroup) -> Vec<String> {
    let mut e = Vec::new();
    if tg.name.is_empty() {
        e.push("Missing task group name".to_string());
    } else if tg.name.contains('\0') {
        e.push("Task group name contains null character".to_string());
    }
    if tg.count < 0 {
        e.push("Task group count can't be negative".to_string());
    }
    if tg.tasks.is_empty() {
        e.push("Missing tasks for task group".to_string());
    }
    if let Some(d) = tg.max_run_duration {
        if d <= 0 {
            e.push("MaxRunDuration must be greater than zero".to_string());
        }
        if j.r#type != JOB_TYPE_BATCH && j.r#type != JOB_TYPE_SYSBATCH {
            e.push(format!(
                "Job type {:?} does not allow max_run_duration",
                j.r#type
            ));
        }
    }
    for (i, c) in tg.constraints.iter().flatten().enumerate() {
        if let Some(err) = constraint_errors(c) {
            e.push(format!("Constraint {} validation failed: {err}", i + 1));
        }
    }
    // Nested multierrors are flattened into the group's list here (multierror.Append).
    match &tg.restart_policy {
        Some(r) => e.extend(restart_errors(r)),
        None => e.push(format!(
            "Task Group {} should have a restart policy",
            tg.name
        )),
    }
    if j.r#type == JOB_TYPE_SYSTEM || j.r#type == JOB_TYPE_SYSBATCH {
        if tg.reschedule_policy.is_some() {
            e.push("System or sysbatch jobs should not have a reschedule policy".to_string());
        }
    } else {
        match &tg.reschedule_policy {
            Some(r) => e.extend(reschedule_errors(r)),
            None => e.push(format!(
                "Task Group {} should have a reschedule policy",
                tg.name
            )),
        }
    }
    match &tg.ephemeral_disk {
        Some(d) if d.size_mb < 10 => {
            e.push(format!("minimum DiskMB value is 10; got {}", d.size_mb))
        }
        Some(_) => {}
        None => e.push(format!(
            "Task Group {} should have an ephemeral disk object",
            tg.name
        )),
    }
    if let Some(u) = &tg.update {
        if j.r#type != JOB_TYPE_SERVICE && j.r#type != JOB_TYPE_SYSTEM {
            e.push(format!(
                "Job type {:?} does not allow update block",
                j.r#type
            ));
        }
        e.extend(update_errors(u));
    }
    if let Some(m) = &tg.migrate {
        if j.r#type == JOB_TYPE_SERVICE {
            e.extend(migrate_errors(m));
        } else {
            e.push(format!(
                "Job type {:?} does not allow migrate block",
                j.r#type
            ));
        }
    }
    let mut tasks: BTreeMap<&str, usize> = BTreeMap::new();
    let mut leaders = 0;
    for (idx, t) in tg.tasks.iter().enumerate() {
        if t.name.is_empty() {
            e.push(format!("Task {} missing name", idx + 1));
        } else if let Some(prev) = tasks.get(t.name.as_str()) {
            e.push(format!(
                "Task {} redefines '{}' from task {}",
                idx + 1,
                t.name,
                prev + 1
            ));
        } else {
            tasks.insert(&t.name, idx);
        }
        if t.leader {
            leaders += 1;
        }
    }
    if leaders > 1 {
        e.push("Only one task may be marked as leader".to_string());
    }
    e.extend(validate_blocks::volume_errors(&j.r#type, tg));
    let ne = network_errors(tg);
    if !ne.is_empty() {
        e.push(format!(
            "Task group network validation failed: {}",
            format_multierror(&ne)
        ));
    }
    let se = validate_services::group_service_errors(tg);
    if !se.is_empty() {
        e.push(format!(
            "Task group service validation failed: {}",
            format_multierror(&se)
        ));
    }
    let ce = validate_services::group_script_check_errors(tg);
    if !ce.is_empty() {
        e.push(format!(
            "Task group service check validation failed: {}",
            format_multierror(&ce)
        ));
    }
    e.extend(validate_blocks::scaling_error(j, tg));
    for t in &tg.tasks {
        let te = task_errors(&j.r#type, tg, t);
        if !te.is_empty() {
            e.push(format!(
                "Task {} validation failed: {}",
                t.name,
                format_multierror(&te)
            ));
        }
    }
    e
}

fn network_errors(tg: &TaskGroup) -> Vec<String> {
    let mut e = Vec::new();
    let mut labels: BTreeMap<String, String> = BTreeMap::new();
    let mut statics: BTreeMap<(String, i32), String> = BTreeMap::new();
    for net in tg.networks.iter().flatten() {
        for p in net.reserved_ports.iter().chain(net.dynamic_ports.iter()) {
            if let Some(other) = labels.get(&p.label) {
                e.push(format!("Port label {} already in use by {other}", p.label));
            } else {
                labels.insert(p.label.clone(), "taskgroup network".to_string());
            }
            if p.value != 0 {
                let hn = if p.host_network.is_empty() {
                    "default".to_string()
                } else {
                    p.host_network.clone()
                };
                if let Some(other) = statics.get(&(hn.clone(), p.value)) {
                    e.push(format!(
                        "Static port {} already reserved by {other}",
                        p.value
                    ));
                } else if p.value > 65535 {
                    e.push(format!(
                        "Port {} ({}) cannot be greater than 65535",
                        p.label, p.value
                    ));
                } else {
                    statics.insert((hn, p.value), format!("taskgroup network:{}", p.label));
                }
            }
            if p.to < -1 {
                e.push(format!(
                    "Port {:?} cannot be mapped to negative value {}",
                    p.label, p.to
                ));
            } else if p.to > 65535 {
                e.push(format!(
                    "Port {:?} cannot be mapped to a port ({}) greater than 65535",
                    p.label, p.to
                ));
            }
        }
    }
    e
}

fn task_errors(job_type: &str, tg: &TaskGroup, t: &Task) -> Vec<String> {
    let mut e = Vec::new();
    if t.name.is_empty() {
        e.push("Missing task name".to_string());
    }
    if t.name == "alloc" {
        e.push("Task cannot be named \"alloc\"".to_string());
    }
    if t.name.contains('/') || t.name.contains('\\') {
        e.push("Task name cannot include slashes".to_string());
    } else if t.name.contains('\0') {
        e.push("Task name cannot include null characters".to_string());
    }
    // Driver names are checked only when a node fingerprints them (at scheduling time), as in
    // Nomad: an unknown driver makes the job unplaceable, not invalid.
    if t.driver.is_empty() {
        e.push("Missing task driver".to_string());
    }
    let kill_timeout = t.kill_timeout.unwrap_or(0);
    if kill_timeout < 0 {
        e.push("KillTimeout must be a positive value".to_string());
    } else if let Some(u) = &tg.update {
        if job_type == JOB_TYPE_SERVICE
            && u.progress_deadline > 0
            && kill_timeout > u.progress_deadline
        {
            e.push(format!(
                "KillTimout ({}) longer than the group's ProgressDeadline ({})",
                dur(kill_timeout),
                dur(u.progress_deadline)
            ));
        }
    }
    if t.shutdown_delay < 0 {
        e.push("ShutdownDelay must be a positive value".to_string());
    }
    match &t.resources {
        None => e.push("Missing task resources".to_string()),
        Some(r) => {
            let re = resources_errors(r);
            if !re.is_empty() {
                e.push(format_multierror(&re));
            }
        }
    }
    match &t.log_config {
        None => e.push("Missing Log Config".to_string()),
        Some(l) => {
            let le = log_errors(l, tg.ephemeral_disk.as_ref().map(|d| d.size_mb));
            if !le.is_empty() {
                e.push(format_multierror(&le));
            }
        }
    }
    for (i, c) in t.constraints.iter().flatten().enumerate() {
        if let Some(err) = constraint_errors(c) {
            e.push(format!("Constraint {} validation failed: {err}", i + 1));
        }
        if c.operand == "distinct_hosts" || c.operand == "distinct_property" {
            e.push(format!(
                "Constraint {} has disallowed Operand at task level: {}",
                i + 1,
                c.operand
            ));
        }
    }
    let se = validate_services::task_service_errors(t);
    if !se.is_empty() {
        e.push(format_multierror(&se));
    }
    e.extend(validate_blocks::task_block_errors(t));
    e
}

fn resources_errors(r: &Resources) -> Vec<String> {
    let mut e = Vec::new();
    if r.cores > 0 && r.cpu > 0 {
        e.push("Task can only ask for 'cpu' or 'cores' resource, not both.".to_string());
    }
    if r.cores < 0 {
        e.push(format!("cores value ({}) cannot be negative", r.cores));
    }
    let mut min = Vec::new();
    if r.cpu < 1 && r.cores == 0 {
        min.push(format!("minimum CPU value is 1; got {}", r.cpu));
    }
    if r.memory_mb < 10 {
        min.push(format!("minimum MemoryMB value is 10; got {}", r.memory_mb));
    }
    if !min.is_empty() {
        e.push(format_multierror(&min));
    }
    if r.disk_mb > 0 {
        e.push(
            "Task can't ask for disk resources, they have to be specified at the task group level."
                .to_string(),
        );
    }
    if let Some(numa) = &r.numa {
        let requested: Vec<&str> = r
            .devices
            .as_ref()
            .and_then(|d| d.as_array())
            .map(|d| d.iter().filter_map(|d| d["Name"].as_str()).collect())
            .unwrap_or_default();
        for dev in numa["Devices"].as_array().into_iter().flatten() {
            let dev = dev.as_str().unwrap_or_default();
            if !requested.contains(&dev) {
                e.push(format!(
                    "numa device {dev:?} not requested as task resource"
                ));
            }
        }
        if !matches!(
            numa["Affinity"].as_str(),
            Some("none" | "prefer" | "require")
        ) {
            e.push("numa affinity must be one of none, prefer, or require".to_string());
        }
    }
    if r.memory_max_mb != 0 && r.memory_max_mb != -1 && r.memory_max_mb < r.memory_mb {
        e.push(format!(
            "MemoryMaxMB value ({}) should be larger than MemoryMB value ({})",
            r.memory_max_mb, r.memory_mb
        ));
    }
    if r.secrets_mb > r.memory_mb {
        e.push(format!(
            "SecretsMB value ({}) cannot be larger than MemoryMB value ({})",
            r.secrets_mb, r.memory_mb
        ));
    }
    if r.secrets_mb < 0 {
        e.push(format!(
            "SecretsMB value ({}) cannot be negative",
            r.secrets_mb
        ));
    }
    e
}

fn log_errors(l: &LogConfig, disk_mb: Option<i64>) -> Vec<String> {
    let mut e = Vec::new();
    if l.max_files < 1 {
        e.push(format!("minimum number of files is 1; got {}", l.max_files));
    }
    if l.max_file_size_mb < 1 {
        e.push(format!(
            "minimum file size is 1MB; got {}",
            l.max_file_size_mb
        ));
    }
    if let Some(size) = disk_mb {
        let usage = i64::from(l.max_files) * i64::from(l.max_file_size_mb);
        if size <= usage {
            e.push(format!(
                "log storage ({usage} MB) must be less than requested disk capacity ({size} MB)"
            ));
        }
    }
    e
}

/// structs.Job.Warnings for the blocks this cut knows.
fn warnings(j: &Job) -> Vec<String> {
    let mut w = Vec::new();
    let mut has_auto_promote = false;
    let mut all_auto_promote = true;
    for tg in &j.task_groups {
        let mut gw = Vec::new();
        if let Some(u) = &tg.update {
            if tg.count > 1 && u.max_parallel > tg.count {
                gw.push(format!(
                    "Update max parallel count is greater than task group count ({} > {}). A destructive change would result in the simultaneous replacement of all allocations.",
                    u.max_parallel, tg.count
                ));
            }
            has_auto_promote |= u.auto_promote;
            all_auto_promote &= u.canary == 0 || u.auto_promote;
        }
        if tg.max_client_disconnect.is_some() {
            gw.push(
                "MaxClientDisconnect is deprecated and ignored in favor of Disconnect.LostAfter"
                    .to_string(),
            );
        }
        if tg.stop_after_client_disconnect.is_some() {
            gw.push("StopAfterClientDisconnect is deprecated and ignored favor of Disconnect.StopOnClientAfter".to_string());
        }
        if tg.prevent_reschedule_on_lost {
            gw.push(
                "PreventRescheduleOnLost is deprecated and ignored in favor of Disconnect.Replace"
                    .to_string(),
            );
        }
        if tg
            .networks
            .as_ref()
            .and_then(|n| n.first())
            .is_some_and(|n| n.mbits > 0)
        {
            gw.push("mbits has been deprecated as of Nomad 0.12.0. Please remove mbits from the network block".to_string());
        }
        for t in &tg.tasks {
            let mut tw = Vec::new();
            if let Some(r) = &t.resources {
                if r.iops != 0 {
                    tw.push("IOPS has been deprecated as of Nomad 0.9.0. Please remove IOPS from resource block.".to_string());
                }
                if r.networks.as_ref().is_some_and(|n| !n.is_empty()) {
                    tw.push("task network resources have been deprecated as of Nomad 0.12.0. Please configure networking via group network block.".to_string());
                }
            }
            if !tw.is_empty() {
                gw.push(format!(
                    "Task {:?} has warnings: {}",
                    t.name,
                    format_multierror(&tw)
                ));
            }
        }
        if !gw.is_empty() {
            w.push(format!(
                "Group {:?} has warnings: {}",
                tg.name,
                format_multierror(&gw)
            ));
        }
    }
    for tg in &j.task_groups {
        w.extend(super::services::shutdown_delay_warnings(tg));
    }
    if has_auto_promote && !all_auto_promote {
        w.push(
            "auto_promote must be true for all groups to enable automatic promotion".to_string(),
        );
    }
    w
}
