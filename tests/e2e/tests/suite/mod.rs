//! One module per suite. A suite starts its hosts with the `Launch` that
//! fits each test: `Launch::InProcess` unless the test needs a process
//! (ready line, stdout, stderr, exit status, signals, `kill -9` and
//! restarts, or an environment of its own).

mod acp_input_requests;
mod acp_interop;
mod acp_prompts;
mod acp_queue;
mod acp_restart;
mod acp_terminals;
mod acp_turns;
mod agent_sessions;
mod agent_sessions_interop;
mod agent_sign_in;
mod agents_page;
mod changesets;
mod commit;
mod customizations;
mod customizations_mcp;
mod discovery;
mod durability;
mod faults;
mod forks;
mod git_loop;
mod handshake;
mod mcp_server_test;
mod merge_modes;
mod reconnect;
mod remote_hosts;
mod resources;
mod rules;
mod search;
mod sessions;
mod soak;
mod sync;
mod terminals;
mod usage;
mod wire_fuzz;
mod worktrees;
