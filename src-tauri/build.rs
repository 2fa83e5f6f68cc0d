//! Tauri's build step. The UI is embedded from `ui/dist`; when it has not
//! been built yet (a plain `cargo build --workspace`), a placeholder page
//! saying how to build it is written so the workspace still compiles.

fn main() {
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist");
    let index = dist.join("index.html");
    if !index.exists() {
        println!(
            "cargo:warning=ui/dist is missing: the app will show a placeholder (cd ui && npm ci && npm run build)"
        );
        let page = "<!doctype html><meta charset=utf-8><title>Hangar</title>\
                    <p>The Hangar UI was not built. Run <code>cd ui &amp;&amp; npm ci &amp;&amp; npm run build</code>, then rebuild.</p>";
        if std::fs::create_dir_all(&dist).and_then(|()| std::fs::write(&index, page)).is_err() {
            println!("cargo:warning=could not write {}", index.display());
        }
    }
    println!("cargo:rerun-if-changed=../ui/dist");
    // Without the `app` feature (the core for `hangar serve --web`) there is
    // no Tauri shell to build.
    if std::env::var_os("CARGO_FEATURE_APP").is_some() {
        tauri_build::build()
    }
}
