//! Markdown → sanitized HTML for the webview.
//!
//! Peer content (agent text, remote hosts) is hostile: everything is parsed
//! with `pulldown-cmark` and then cleaned by `ammonia` with an allow-list
//! that keeps formatting, tables, code and links but drops images, raw
//! styles, scripts and event handlers. Code blocks keep one
//! `language-NAME` class so the UI can highlight them.
//!
//! An unclosed code fence (a reply still streaming) renders as a code
//! block running to the end of the text, as CommonMark specifies, so a
//! half-written fence never leaks its contents as prose.
//!
//! [`render_blocks`] cuts the sanitized HTML into its top-level blocks (a
//! paragraph, a list, a code block …, each with the whitespace after it);
//! joined, they are exactly [`render`]'s output. A streaming part is sent
//! as blocks so that only the ones that changed travel (`partAppend`).

use std::collections::HashSet;
use std::sync::OnceLock;

use pulldown_cmark::{html, Options, Parser};

/// Render `text` as sanitized HTML.
pub fn render(text: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    let parser = Parser::new_ext(text, options);
    let mut raw = String::with_capacity(text.len() + text.len() / 4);
    html::push_html(&mut raw, parser);
    sanitizer().clean(&raw).to_string()
}

/// Render `text` as sanitized HTML, cut into its top-level blocks.
pub fn render_blocks(text: &str) -> Vec<String> {
    top_level_blocks(&render(text))
}

/// Elements with no closing tag.
const VOID: &[&str] = &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"];

/// Cut serialized HTML (well formed, as ammonia writes it: every element
/// closed, attribute values quoted, `<` and `>` in text escaped) after each
/// element that closes at the top level, together with the whitespace that
/// follows it. Text outside any element goes with the next block.
pub fn top_level_blocks(html: &str) -> Vec<String> {
    let bytes = html.as_bytes();
    let mut blocks = Vec::new();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        // The tag runs to the first `>` outside a quoted attribute value.
        let mut end = i + 1;
        let mut quote = None;
        while end < bytes.len() {
            match (quote, bytes[end]) {
                (Some(q), c) if c == q => quote = None,
                (None, c @ (b'"' | b'\'')) => quote = Some(c),
                (None, b'>') => break,
                _ => {}
            }
            end += 1;
        }
        let tag = &html[i + 1..end.min(bytes.len())];
        let name: String = tag.trim_start_matches('/').chars().take_while(char::is_ascii_alphanumeric).collect();
        if tag.starts_with('/') {
            depth = depth.saturating_sub(1);
        } else if !(VOID.contains(&name.to_ascii_lowercase().as_str()) || tag.ends_with('/')) {
            depth += 1;
        }
        i = end + 1;
        if depth == 0 {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let cut = i.min(bytes.len());
            blocks.push(html[start..cut].to_owned());
            start = cut;
        }
    }
    if start < html.len() {
        blocks.push(html[start..].to_owned());
    }
    blocks
}

fn sanitizer() -> &'static ammonia::Builder<'static> {
    static BUILDER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        let tags: HashSet<&str> = [
            "a",
            "p",
            "br",
            "hr",
            "em",
            "strong",
            "del",
            "code",
            "pre",
            "blockquote",
            "ul",
            "ol",
            "li",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "table",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "input",
            "span",
        ]
        .into_iter()
        .collect();
        b.tags(tags);
        b.add_tag_attributes("a", &["href", "title"]);
        b.add_tag_attributes("code", &["class"]);
        b.add_tag_attributes("input", &["type", "checked", "disabled"]);
        b.add_tag_attributes("th", &["align"]);
        b.add_tag_attributes("td", &["align"]);
        b.url_schemes(["http", "https", "mailto"].into_iter().collect());
        b.link_rel(Some("noopener noreferrer"));
        b.attribute_filter(|element, attribute, value| match (element, attribute) {
            ("code", "class") => language_class(value).map(Into::into),
            ("input", "type") => (value == "checkbox").then(|| value.into()),
            _ => Some(value.into()),
        });
        b
    })
}

/// Keep only a `language-NAME` class with a plain name.
fn language_class(value: &str) -> Option<String> {
    let name = value.split_whitespace().find_map(|c| c.strip_prefix("language-"))?;
    let plain =
        !name.is_empty() && name.len() <= 32 && name.chars().all(|c| c.is_ascii_alphanumeric() || "+-#_.".contains(c));
    plain.then(|| format!("language-{name}"))
}

#[cfg(test)]
mod tests {
    use super::{render, render_blocks};

    #[test]
    fn blocks_are_the_top_level_elements_and_join_to_the_html() {
        let text = "# T\n\nA *b* [l](https://e.com/?a=\"x>y\")\n\n- one\n- two\n\n---\n\n```rust\nif a < b {}\n```\n\n| a |\n|---|\n| 1 |\n\ntail";
        let blocks = render_blocks(text);
        assert_eq!(blocks.concat(), render(text), "lossless");
        let starts: Vec<&str> = blocks.iter().map(|b| &b[..b.find(['>', ' ']).unwrap()]).collect();
        assert_eq!(starts, ["<h1", "<p", "<ul", "<hr", "<pre", "<table", "<p"], "{blocks:#?}");
        assert!(blocks[2].ends_with("</ul>\n"), "a block takes the whitespace after it: {:?}", blocks[2]);
        assert_eq!(render_blocks(""), Vec::<String>::new());
    }

    #[test]
    fn renders_formatting_and_code_with_language() {
        let html = render("# Title\n\nSome **bold** and `code`.\n\n```rust\nfn main() {}\n```\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains(r#"<code class="language-rust">fn main() {}"#), "{html}");
    }

    #[test]
    fn open_fence_renders_as_code_to_the_end() {
        let html = render("Here:\n\n```python\nprint('<b>hi</b>')\nfor x in");
        assert!(html.contains(r#"<pre><code class="language-python">"#), "{html}");
        assert!(html.contains("&lt;b&gt;hi&lt;/b&gt;"), "escaped inside the open fence: {html}");
        assert!(!html.contains("<b>"), "{html}");
    }

    #[test]
    fn strips_scripts_handlers_images_and_bad_urls() {
        let html = render(
            "<script>alert(1)</script><img src=x onerror=alert(1)> <a href=\"javascript:alert(1)\">x</a>\n\n[ok](https://example.com) <span onclick=\"x()\" style=\"color:red\">s</span>",
        );
        assert!(!html.contains("script"), "{html}");
        assert!(!html.contains("onerror") && !html.contains("<img"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("onclick") && !html.contains("style="), "{html}");
        assert!(html.contains(r#"href="https://example.com""#), "{html}");
    }

    #[test]
    fn hostile_code_class_is_dropped() {
        let html = render("```rust\" onmouseover=\"x\nx\n```");
        assert!(!html.contains("onmouseover=\""), "{html}");
    }
}
