//! Full-text search over everything the store keeps: an SQLite FTS5 index
//! in `hangar.db` beside the tables it is built from, written by the store's
//! writer thread in the same transaction as the turn row or title it covers
//! (so it survives `kill -9` with them), and rebuilt from `turns` and
//! `sessions` when it is missing or from an older version.
//!
//! Map:
//! - `schema.rs`  — the index tables and their version; rebuild when due.
//! - `extract.rs` — the searchable text of a stored turn (message, markdown,
//!   tool call titles, paths of edited files).
//! - `feed.rs`    — index writes inside the writer's transaction: a turn
//!   ended, a title changed, turns truncated, a session removed.
//! - `rebuild.rs` — the whole index again from the store (`hangar reindex`).
//! - `query.rs`   — a person's query as an FTS5 MATCH expression built from
//!   quoted tokens (never the raw text).
//! - `cursor.rs`  — the opaque paging cursor.
//! - `reader.rs`  — running a search on a read connection of its own.

mod cursor;
mod extract;
mod feed;
mod query;
mod reader;
mod rebuild;
mod schema;

pub use cursor::SearchCursor;
pub(crate) use feed::index_ops;
pub use query::{match_expression, QueryError};
pub use reader::{open_reader, search, SearchError, SearchHit, SearchPage, SearchReader, SearchRequest};
pub use rebuild::{rebuild, RebuildReport};
pub use schema::{ensure, INDEX_VERSION};
