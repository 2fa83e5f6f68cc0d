//! Folder-picker listings from `resourceList`: folders first, sorted by
//! name, with their URIs and the parent folder's URI.

use ahp_types::commands::ResourceListResult;

use hangar_desktop_protocol::command::{FolderEntry, FolderListing};

/// The parent of a `file://` URI, if it has one.
pub fn parent_uri(uri: &str) -> Option<String> {
    let path = uri.strip_prefix("file://")?;
    let trimmed = path.trim_end_matches('/');
    let cut = trimmed.rfind('/')?;
    let parent = if cut == 0 { "/" } else { &trimmed[..cut] };
    (parent != trimmed).then(|| format!("file://{parent}"))
}

/// A child's URI.
pub fn child_uri(uri: &str, name: &str) -> String {
    let encoded: String = percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC)
        .to_string()
        .replace("%2E", ".")
        .replace("%2D", "-")
        .replace("%5F", "_");
    format!("{}/{}", uri.trim_end_matches('/'), encoded)
}

/// The picker's view of a `resourceList` result.
pub fn listing(uri: &str, result: &ResourceListResult) -> FolderListing {
    let mut entries: Vec<(bool, &str)> =
        result.entries.iter().map(|e| (e.r#type == "directory", e.name.as_str())).collect();
    entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.to_lowercase().cmp(&b.1.to_lowercase())));
    let entries = entries
        .into_iter()
        .map(|(dir, name)| FolderEntry { name: name.to_owned(), dir, uri: child_uri(uri, name) })
        .collect();
    FolderListing { uri: uri.to_owned(), parent: parent_uri(uri), entries }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parents_and_children() {
        assert_eq!(parent_uri("file:///home/u/src").as_deref(), Some("file:///home/u"));
        assert_eq!(parent_uri("file:///home").as_deref(), Some("file:///"));
        assert_eq!(parent_uri("file:///"), None);
        assert_eq!(child_uri("file:///home/u/", "my dir"), "file:///home/u/my%20dir");
        assert_eq!(child_uri("file:///home/u", "a.b-c_d"), "file:///home/u/a.b-c_d");
    }

    #[test]
    fn folders_first_then_by_name() {
        let listed = serde_json::from_value(json!({"entries": [
            {"name": "b.txt", "type": "file"}, {"name": "Zed", "type": "directory"}, {"name": "app", "type": "directory"}
        ]}))
        .unwrap();
        let v = listing("file:///h", &listed);
        let names: Vec<&str> = v.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["app", "Zed", "b.txt"]);
        assert_eq!(v.parent.as_deref(), Some("file:///"));
    }
}
