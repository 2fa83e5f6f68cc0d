//! Signing in, for the sign-in tests: a script with `"auth": { "key":
//! { "var", "value", "method"? }, "agentMethod" }` refuses `session/new`,
//! `/load` and `/resume` with ACP `auth_required` (`-32000`) until it is
//! signed in: its environment has `var` set to `value` (a key the host
//! kept) — and, with `method`, it was sent `authenticate` with that method
//! first, as Codex wants —, or a
//! marker file beside the script exists, written by `authenticate` with
//! `agentMethod` or by a terminal login (`--login`: the agent's command
//! run again with that argument; `--login-fail` fails instead;
//! `--login-ask` first asks on its terminal which account to use and signs
//! in only when the answer is `fake-user`, as a login that asks questions
//! on a TTY does). `"agentMethodMillis"` makes `authenticate` take that
//! long (a person signing in in a browser).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// What signs this agent in.
pub struct Auth {
    key: Option<(String, String)>,
    /// The key counts only once `authenticate` named this method.
    key_method: Option<String>,
    key_told: bool,
    agent_method: Option<String>,
    /// How long `authenticate` with `agent_method` takes.
    agent_method_wait: std::time::Duration,
    marker: PathBuf,
}

/// The marker file of the script at `script`.
fn marker(script: &Path) -> PathBuf {
    let mut name = script.as_os_str().to_owned();
    name.push(".signed-in");
    PathBuf::from(name)
}

impl Auth {
    /// The script's `auth`, if it has one (`script_path`: where it was read).
    pub fn from_script(script: &Value, script_path: Option<&str>) -> Option<Self> {
        let auth = script.get("auth")?;
        let key = auth
            .get("key")
            .and_then(|k| Some((k.get("var")?.as_str()?.to_owned(), k.get("value")?.as_str()?.to_owned())));
        let key_method = auth.pointer("/key/method").and_then(Value::as_str).map(str::to_owned);
        let agent_method = auth.get("agentMethod").and_then(Value::as_str).map(str::to_owned);
        let agent_method_wait =
            std::time::Duration::from_millis(auth.get("agentMethodMillis").and_then(Value::as_u64).unwrap_or(0));
        Some(Self {
            key,
            key_method,
            key_told: false,
            agent_method,
            agent_method_wait,
            marker: marker(Path::new(script_path?)),
        })
    }

    /// Whether the agent is signed in now.
    pub fn signed_in(&self) -> bool {
        let by_key = self.key.as_ref().is_some_and(|(var, value)| std::env::var(var).ok().as_deref() == Some(value));
        (by_key && (self.key_method.is_none() || self.key_told)) || self.marker.exists()
    }

    /// ACP `authenticate {methodId}`.
    pub fn authenticate(&mut self, method: &str) -> Result<(), String> {
        if self.key_method.as_deref() == Some(method) {
            self.key_told = true;
            return Ok(());
        }
        if self.agent_method.as_deref() != Some(method) {
            return Err(format!("unknown auth method {method}"));
        }
        std::thread::sleep(self.agent_method_wait);
        std::fs::write(&self.marker, "signed in by authenticate").map_err(|e| e.to_string())
    }
}

/// `--login` / `--login-fail` with `--script FILE`: a terminal login.
/// Returns the exit code.
pub fn login(args: &[String]) -> i32 {
    let Some(script) = args.iter().position(|a| a == "--script").and_then(|i| args.get(i + 1)) else {
        eprintln!("login: no --script");
        return 2;
    };
    if args.iter().any(|a| a == "--login-ask") {
        return ask_then_sign_in(Path::new(script));
    }
    println!("To sign in, open https://example.test/device and enter the code FAKE-1234.");
    std::thread::sleep(std::time::Duration::from_millis(300));
    if args.iter().any(|a| a == "--login-fail") {
        eprintln!("The code expired. Nothing was saved.");
        return 1;
    }
    match std::fs::write(marker(Path::new(script)), "signed in by --login") {
        Ok(()) => {
            println!("Signed in as fake-user.");
            0
        }
        Err(e) => {
            eprintln!("login: {e}");
            1
        }
    }
}

/// `--login-ask`: a question on the terminal, answered by a person. Only a
/// terminal can answer (not a pipe): the prompt says whether stdin is one.
fn ask_then_sign_in(script: &Path) -> i32 {
    use std::io::{BufRead, IsTerminal, Write};
    let tty = if std::io::stdin().is_terminal() { "tty" } else { "not a tty" };
    print!("Account to sign in with ({tty}): ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() || answer.is_empty() {
        eprintln!("No answer: nothing was saved.");
        return 1;
    }
    if answer.trim() != "fake-user" || tty != "tty" {
        eprintln!("Unknown account {:?}: nothing was saved.", answer.trim());
        return 1;
    }
    match std::fs::write(marker(script), "signed in by --login-ask") {
        Ok(()) => {
            println!("Signed in as fake-user.");
            0
        }
        Err(e) => {
            eprintln!("login: {e}");
            1
        }
    }
}
