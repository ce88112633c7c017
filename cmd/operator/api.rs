//! `nomad operator api [options] <path|url>`: a curl-like request to the HTTP API with the
//! CLI's address, region, namespace and token filled in. The body streams to stdout as it
//! arrives, so `nomad operator api /v1/event/stream` follows the event stream.

use std::io::Write as _;
use std::os::unix::fs::FileTypeExt as _;

use anyhow::anyhow;
use futures::StreamExt as _;
use reqwest::Url;

use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The HTTP method (default GET, or POST when a body comes on stdin).
    #[arg(short = 'X', value_name = "METHOD")]
    pub method: Option<String>,
    /// A request header, `Key: Value` (repeatable).
    #[arg(short = 'H', value_name = "HEADER")]
    pub headers: Vec<String>,
    /// A filter expression, added as `?filter=`.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Print the equivalent curl command instead of sending the request.
    #[arg(long)]
    pub dryrun: bool,
    /// Print the request and response headers on stderr.
    #[arg(long)]
    pub verbose: bool,
    /// The API path (`/v1/jobs`) or a full URL.
    pub path: Vec<String>,
}

/// Whether stdin carries a body: a pipe or a file, not a terminal or `/dev/null` (Go's
/// "not a character device" test).
fn stdin_has_body() -> bool {
    std::fs::metadata("/dev/stdin").is_ok_and(|m| !m.file_type().is_char_device())
}

fn parse_header(h: &str) -> anyhow::Result<(String, String)> {
    match h.split_once(':') {
        Some((k, v)) => Ok((k.to_string(), v.trim().to_string())),
        None => Err(anyhow!(
            "Error parsing flags: Headers must be in the form 'Key: Value' but found: {h:?}"
        )),
    }
}

/// The path as a URL on the configured address (Nomad's `pathToURL`), with the filter and the
/// CLI's region and namespace as query parameters unless the path sets them.
fn request_url(g: &GlobalArgs, path: &str, filter: Option<&str>) -> anyhow::Result<Url> {
    let base = Url::parse(&g.address).map_err(|e| {
        anyhow!("Error turning path into URL: unable to parse configured address: {e}")
    })?;
    let full = if ["http://", "https://", "unix://"]
        .iter()
        .any(|s| path.starts_with(s))
    {
        path.to_string()
    } else if path.starts_with('/') {
        format!("{}://{}{path}", base.scheme(), host_port(&base))
    } else {
        format!("{}://{path}", base.scheme())
    };
    let mut url = Url::parse(&full).map_err(|e| anyhow!("Error turning path into URL: {e}"))?;
    let has = |url: &Url, k: &str| url.query_pairs().any(|(key, _)| key == k);
    let mut extra: Vec<(&str, String)> = Vec::new();
    if let Some(f) = filter.filter(|f| !f.is_empty()) {
        extra.push(("filter", f.to_string()));
    }
    if let Some(r) = g
        .region
        .as_deref()
        .filter(|r| !r.is_empty() && !has(&url, "region"))
    {
        extra.push(("region", r.to_string()));
    }
    if let Some(n) = g
        .namespace
        .as_deref()
        .filter(|n| !n.is_empty() && !has(&url, "namespace"))
    {
        extra.push(("namespace", n.to_string()));
    }
    if !extra.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for (k, v) in extra {
            pairs.append_pair(k, &v);
        }
    }
    Ok(url)
}

fn host_port(u: &Url) -> String {
    match u.port() {
        Some(p) => format!("{}:{p}", u.host_str().unwrap_or("127.0.0.1")),
        None => u.host_str().unwrap_or("127.0.0.1").to_string(),
    }
}

pub async fn run(args: &Args) -> anyhow::Result<i32> {
    let g = &args.global;
    let path = match args.path.as_slice() {
        [p] => p,
        [] => {
            output::err("A path or URL is required");
            output::err("For additional help try 'nomad operator api -help'");
            return Ok(1);
        }
        many => {
            output::err(format!(
                "operator api accepts exactly 1 argument, but {} arguments were found",
                many.len()
            ));
            output::err("For additional help try 'nomad operator api -help'");
            return Ok(1);
        }
    };
    let headers: Vec<(String, String)> = args
        .headers
        .iter()
        .map(|h| parse_header(h))
        .collect::<anyhow::Result<_>>()?;
    let body = if stdin_has_body() {
        if args.verbose {
            output::err("* Reading request body from stdin.");
        }
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b)
            .map_err(|e| anyhow!("Error reading stdin: {e}"))?;
        Some(b)
    } else {
        None
    };
    let method = match (&args.method, &body) {
        (Some(m), _) => m.to_uppercase(),
        (None, Some(_)) => "POST".to_string(),
        (None, None) => "GET".to_string(),
    };
    let url = request_url(g, path, args.filter.as_deref())?;
    let token = g.token.clone().filter(|t| !t.is_empty());
    let has_token_header = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("X-Nomad-Token"));

    if args.dryrun {
        let mut parts = vec!["curl".to_string()];
        if args.verbose {
            parts.push("--verbose".into());
        }
        if method != "GET" {
            parts.push(format!("-X {method}"));
        }
        if body.is_some() {
            parts.push("--data-binary @-".into());
        }
        for (k, v) in &headers {
            parts.push(format!("-H '{k}: {v}'"));
        }
        if !has_token_header && token.is_some() {
            parts.push(r#"-H "X-Nomad-Token: ${NOMAD_TOKEN}""#.into());
        }
        parts.push(url.to_string());
        output::out(parts.join(" \\\n  "))?;
        return Ok(0);
    }

    let method = reqwest::Method::from_bytes(method.as_bytes())
        .map_err(|e| anyhow!("Error making request: invalid method {method:?}: {e}"))?;
    let client = reqwest::Client::new();
    let mut req = client.request(method.clone(), url.clone());
    for (k, v) in &headers {
        req = req.header(k, v);
    }
    if let (false, Some(t)) = (has_token_header, &token) {
        req = req.header("X-Nomad-Token", t);
    }
    if let Some(b) = body {
        req = req.body(b);
    }
    if args.verbose {
        output::err(format!("> {method} {} HTTP/1.1", url.path()));
        for (k, v) in &headers {
            output::err(format!("> {k}: {v}"));
        }
        output::err(">");
        output::err("* Sending request and receiving response...");
    }
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) => {
            output::err(format!("Error performing request: {e}"));
            return Ok(1);
        }
    };
    if args.verbose {
        output::err(format!("< HTTP/1.1 {}", resp.status()));
        for (k, v) in resp.headers() {
            output::err(format!("< {k}: {}", v.to_str().unwrap_or("")));
        }
    }
    let mut stream = resp.bytes_stream();
    let mut written = 0usize;
    let mut stdout = std::io::stdout().lock();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                output::err(format!("Error reading response after {written} bytes: {e}"));
                return Ok(1);
            }
        };
        written += chunk.len();
        // A closed stdout (`| head`) ends the command quietly.
        if stdout
            .write_all(&chunk)
            .and_then(|_| stdout.flush())
            .is_err()
        {
            return Ok(0);
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(addr: &str) -> GlobalArgs {
        GlobalArgs {
            address: addr.to_string(),
            namespace: Some("prod".into()),
            ..Default::default()
        }
    }

    #[test]
    fn paths_become_urls_on_the_configured_address() {
        let g = global("http://127.0.0.1:4646");
        let u = request_url(&g, "/v1/jobs", Some(r#"Status == "running""#)).expect("url");
        assert_eq!(
            u.as_str(),
            "http://127.0.0.1:4646/v1/jobs?filter=Status+%3D%3D+%22running%22&namespace=prod"
        );
        let u = request_url(&g, "/v1/jobs?namespace=dev", None).expect("url");
        assert_eq!(u.as_str(), "http://127.0.0.1:4646/v1/jobs?namespace=dev");
        let u = request_url(&g, "http://10.0.0.1:4646/v1/nodes", None).expect("url");
        assert_eq!(u.as_str(), "http://10.0.0.1:4646/v1/nodes?namespace=prod");
        let u = request_url(&g, "other:4646/v1/nodes", None).expect("url");
        assert_eq!(u.as_str(), "http://other:4646/v1/nodes?namespace=prod");
    }

    #[test]
    fn headers_need_a_colon() {
        assert_eq!(
            parse_header("X-A:  b ").expect("header"),
            ("X-A".into(), "b".into())
        );
        assert!(parse_header("nope").is_err());
    }
}
