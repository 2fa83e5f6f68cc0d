//! The earlier turns of a forked chat (`origin.kind: "fork"`), as text for
//! the first prompt its agent gets: the agent of a fork is a new ACP
//! session that has not seen them, and ACP has no way to hand it a
//! history. Only the user's messages and the agent's text answers go; tool
//! calls and reasoning do not.

use ahp_types::state::{ChatOrigin, ChatState, ResponsePart};

/// The earlier conversation to send before the next prompt of `chat`: only
/// while no turn has run in the fork yet (its last turn is still the one it
/// was forked from).
pub fn fork_context(chat: &ChatState) -> Option<String> {
    let Some(ChatOrigin::Fork { turn_id, .. }) = &chat.origin else { return None };
    if chat.turns.last().map(|t| &t.id) != Some(turn_id) {
        return None;
    }
    let mut text = String::from(
        "This conversation continues an earlier one, forked from it; the files in your working directory \
         are as they were at its end. The earlier conversation:\n",
    );
    for turn in &chat.turns {
        text.push_str("\n<user>\n");
        text.push_str(&turn.message.text);
        text.push_str("\n</user>\n<assistant>\n");
        let answer: Vec<&str> = turn
            .response_parts
            .iter()
            .filter_map(|p| match p {
                ResponsePart::Markdown(m) => Some(m.content.as_str()),
                _ => None,
            })
            .collect();
        text.push_str(&answer.join("\n"));
        text.push_str("\n</assistant>\n");
    }
    text.push_str("\nThe new message follows.");
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chat(origin_turn: &str, turns: &[(&str, &str, &str)]) -> ChatState {
        let turns: Vec<_> = turns
            .iter()
            .map(|(id, ask, answer)| {
                json!({ "id": id, "state": "complete",
                        "message": { "text": ask, "origin": { "kind": "user" } },
                        "responseParts": [{ "kind": "markdown", "id": "p", "content": answer }] })
            })
            .collect();
        serde_json::from_value(json!({
            "resource": "ahp-chat:/f", "title": "", "status": 0, "modifiedAt": "2026-01-01T00:00:00Z",
            "origin": { "kind": "fork", "chat": "ahp-chat:/src", "turnId": origin_turn },
            "turns": turns,
        }))
        .unwrap()
    }

    #[test]
    fn a_fork_sends_its_earlier_turns_once() {
        let fresh = chat("t2", &[("t1", "make a.txt", "made it"), ("t2", "now b", "done b")]);
        let text = fork_context(&fresh).unwrap();
        assert!(text.contains("<user>\nmake a.txt\n</user>\n<assistant>\nmade it\n</assistant>"), "{text}");
        assert!(text.find("made it") < text.find("now b"));
        // A turn ran in the fork: the agent has the context already.
        let used = chat("t1", &[("t1", "make a.txt", "made it"), ("t9", "more", "ok")]);
        assert_eq!(fork_context(&used), None);
        let mut plain = fresh;
        plain.origin = None;
        assert_eq!(fork_context(&plain), None);
    }
}
