//! Full-text search over everything the store keeps: an SQLite FTS5 index
//! in `search.db` beside `hangar.db`, written by an indexer thread of its own
//! that follows a queue the store writer appends to in the same transaction
//! as the turn row or title it covers (so nothing is lost to `kill -9`, and
//! the writer never pays for the index), and rebuilt from `turns` and
//! `sessions` when it is missing or from an older version.
//!
//! Map:
//! - `schema.rs`  — the index file, its tables and version; rebuild when due.
//! - `queue.rs`   — the writer's side: `search_queue` rows, the wake-up.
//! - `indexer.rs` — the indexer thread: applies queued rows in batches.
//! - `extract.rs` — the searchable text of a stored turn (message, markdown,
//!   tool call titles, paths of edited files).
//! - `feed.rs`    — one queued row applied: a turn ended, a title changed,
//!   turns truncated, a session removed.
//! - `rebuild.rs` — the whole index again from the store (`hangar reindex`).
//! - `query.rs`   — a person's query as an FTS5 MATCH expression built from
//!   quoted tokens (never the raw text).
//! - `cursor.rs`  — the opaque paging cursor.
//! - `narrow.rs`  — a long last word found through the prefix index, not
//!   the list of every word it starts.
//! - `rank.rs`    — how a match is scored (BM25 without the document
//!   frequency, which FTS5 would count by reading a word's every match).
//! - `reader.rs`  — running a search on a read connection of its own.

mod cursor;
mod extract;
mod feed;
mod indexer;
mod narrow;
mod query;
mod queue;
mod rank;
mod reader;
mod rebuild;
mod schema;

pub use cursor::SearchCursor;
pub use indexer::SearchIndexer;
pub use query::{match_expression, QueryError};
pub use queue::IndexFeed;
pub(crate) use queue::{prune, queue_ops, QueueState};
pub use reader::{open_reader, search, SearchError, SearchHit, SearchPage, SearchReader, SearchRequest};
pub use rebuild::{rebuild, RebuildReport};
pub use schema::{ensure, index_path, open_index, INDEX_VERSION};
