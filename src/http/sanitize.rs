//! The one place secrets are stripped before anything leaves through the API. Every handler
//! that returns a node passes it through here; the state store keeps the real values.

use crate::api::Node;

/// A copy of `node` without its `SecretID` (the client's credential for node RPCs).
pub fn node(node: &Node) -> Node {
    Node {
        secret_id: String::new(),
        ..node.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_id_is_blanked_and_the_rest_kept() {
        let n = Node {
            id: "n1".into(),
            secret_id: "s3cr3t".into(),
            name: "box".into(),
            ..Default::default()
        };
        let out = node(&n);
        assert_eq!(out.secret_id, "");
        assert_eq!(out.id, "n1");
        assert_eq!(out.name, "box");
    }
}
