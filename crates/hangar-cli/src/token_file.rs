//! The token file: created with a random 256-bit token and mode 0600 when
//! missing, read otherwise. The token is never printed or logged.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rand::RngCore;

/// Read the token in `path`, creating the file first if it does not exist.
pub fn read_or_create(path: &Path) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let token = text.trim().to_owned();
            if token.len() < 16 {
                return Err(format!("the token in {} is shorter than 16 characters", path.display()));
            }
            Ok(token)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| format!("creating {}: {e}", parent.display()))?;
            }
            let mut bytes = [0u8; 32];
            rand::thread_rng().fill_bytes(&mut bytes);
            let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .map_err(|e| format!("creating {}: {e}", path.display()))?;
            file.write_all(token.as_bytes()).map_err(|e| format!("writing {}: {e}", path.display()))?;
            Ok(token)
        }
        Err(e) => Err(format!("reading {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn creates_a_private_random_token_once() {
        let dir = std::env::temp_dir().join(format!("hangar-token-test-{}", std::process::id()));
        let path = dir.join("token");
        let _ = std::fs::remove_dir_all(&dir);
        let first = read_or_create(&path).unwrap();
        assert_eq!(first.len(), 64);
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(read_or_create(&path).unwrap(), first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
