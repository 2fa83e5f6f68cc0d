//! Whole-file writes that a crash cannot leave half done: the bytes go to a
//! staged file beside the target, are synced, and the staged file is renamed
//! over the target. After a power cut the file holds the old content or the
//! new, never a mix or an empty file. Used by the outbox and the kept line
//! comments.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` (its folder made if missing) atomically.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut staged_name = path.file_name().unwrap_or_default().to_os_string();
    staged_name.push(".staged");
    let staged = path.with_file_name(staged_name);
    {
        let mut file = std::fs::File::create(&staged)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&staged, path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_write_replaces_the_whole_file_and_leaves_no_staged_copy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/x.json");
        super::write(&path, b"first, longer").unwrap();
        super::write(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> =
            std::fs::read_dir(dir.path().join("sub")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["x.json"]);
    }
}
