//! Input requests (`chat/inputRequested` parts): the questions as the form
//! shows them, and the answers — shown as they are synced, and sent back by
//! `chat.inputAnswer` / `chat.inputComplete`. Converted from and to the
//! `ahp-types` shapes here, field by field.

use std::collections::{BTreeMap, HashMap};

use ahp_types::state::{
    ChatInputAnswer, ChatInputAnswerValue, ChatInputAnswered, ChatInputBooleanAnswerValue, ChatInputNumberAnswerValue,
    ChatInputOption, ChatInputQuestion, ChatInputRequest, ChatInputSelectedAnswerValue,
    ChatInputSelectedManyAnswerValue, ChatInputSkipped, ChatInputTextAnswerValue,
};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// An input request.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InputRequestView {
    /// Request id.
    pub id: String,
    /// What the agent asks.
    pub message: Option<String>,
    /// A page to open (URL mode).
    pub url: Option<String>,
    /// The questions.
    pub questions: Vec<QuestionView>,
    /// Answers synced so far, by question id.
    pub answers: BTreeMap<String, AnswerView>,
}

/// An option of a select question.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InputOptionView {
    /// Option id (the answer's value).
    pub id: String,
    /// Label.
    pub label: String,
    /// More about it.
    pub description: Option<String>,
    /// Whether the agent recommends it (the form's default).
    pub recommended: Option<bool>,
}

/// A question: the fields every kind has, and the kind's own.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum QuestionView {
    /// Free text.
    Text(TextQuestion),
    /// A number.
    Number(NumberQuestion),
    /// A whole number.
    Integer(NumberQuestion),
    /// Yes or no.
    Boolean(BooleanQuestion),
    /// One of the options (or free text, if allowed).
    SingleSelect(SelectQuestion),
    /// Some of the options (or free text, if allowed).
    MultiSelect(SelectQuestion),
}

/// What every question has.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct QuestionCommon {
    /// Question id.
    pub id: String,
    /// Short title.
    pub title: Option<String>,
    /// The question.
    pub message: String,
    /// Whether an answer is required.
    pub required: Option<bool>,
}

/// A text question.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TextQuestion {
    /// Id, title, message, required.
    #[serde(flatten)]
    pub common: QuestionCommon,
    /// `email`, `uri`, … .
    pub format: Option<String>,
    /// Fewest characters.
    pub min: Option<i64>,
    /// Most characters.
    pub max: Option<i64>,
    /// Default answer.
    pub default_value: Option<String>,
}

/// A number question.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct NumberQuestion {
    /// Id, title, message, required.
    #[serde(flatten)]
    pub common: QuestionCommon,
    /// Least value.
    pub min: Option<f64>,
    /// Greatest value.
    pub max: Option<f64>,
    /// Default answer.
    pub default_value: Option<f64>,
}

/// A yes-or-no question.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BooleanQuestion {
    /// Id, title, message, required.
    #[serde(flatten)]
    pub common: QuestionCommon,
    /// Default answer.
    pub default_value: Option<bool>,
}

/// A select question (single or multiple).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SelectQuestion {
    /// Id, title, message, required.
    #[serde(flatten)]
    pub common: QuestionCommon,
    /// The options.
    pub options: Vec<InputOptionView>,
    /// Whether values outside the options are allowed.
    pub allow_freeform_input: Option<bool>,
    /// Fewest picks (multiple).
    pub min: Option<i64>,
    /// Most picks (multiple).
    pub max: Option<i64>,
}

/// A value typed or picked for a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum AnswerValue {
    /// Text.
    Text {
        /// The text.
        value: String,
    },
    /// A number.
    Number {
        /// The number.
        value: f64,
    },
    /// Yes or no.
    Boolean {
        /// The answer.
        value: bool,
    },
    /// One option (or free text).
    Selected {
        /// The option id or the text.
        value: String,
        /// Values typed besides.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        freeform_values: Option<Vec<String>>,
    },
    /// Some options.
    SelectedMany {
        /// The option ids.
        value: Vec<String>,
        /// Values typed besides.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        freeform_values: Option<Vec<String>>,
    },
}

/// An answer: a draft being typed, submitted, or skipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "lowercase", rename_all_fields = "camelCase")]
pub enum AnswerView {
    /// Being typed (synced to other clients).
    Draft {
        /// The value so far.
        value: AnswerValue,
    },
    /// Submitted.
    Submitted {
        /// The value.
        value: AnswerValue,
    },
    /// Skipped.
    Skipped {
        /// Values typed anyway.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        freeform_values: Option<Vec<String>>,
    },
}

impl From<&ChatInputRequest> for InputRequestView {
    fn from(r: &ChatInputRequest) -> Self {
        let answers = r.answers.iter().flatten();
        Self {
            id: r.id.clone(),
            message: r.message.clone(),
            url: r.url.clone(),
            questions: r.questions.iter().flatten().filter_map(question_view).collect(),
            answers: answers.filter_map(|(id, a)| Some((id.clone(), AnswerView::from_ahp(a)?))).collect(),
        }
    }
}

fn options(options: &[ChatInputOption]) -> Vec<InputOptionView> {
    options
        .iter()
        .map(|o| InputOptionView {
            id: o.id.clone(),
            label: o.label.clone(),
            description: o.description.clone(),
            recommended: o.recommended,
        })
        .collect()
}

/// The fields every `ahp-types` question has, as [`QuestionCommon`].
macro_rules! common {
    ($q:expr) => {
        QuestionCommon {
            id: $q.id.clone(),
            title: $q.title.clone(),
            message: $q.message.clone(),
            required: $q.required,
        }
    };
}

/// A question as the form shows it; kinds of a newer protocol are left out
/// (the form could not answer them).
fn question_view(q: &ChatInputQuestion) -> Option<QuestionView> {
    let number = |q: &ahp_types::state::ChatInputNumberQuestion| NumberQuestion {
        common: common!(q),
        min: q.min,
        max: q.max,
        default_value: q.default_value,
    };
    Some(match q {
        ChatInputQuestion::Text(q) => QuestionView::Text(TextQuestion {
            common: common!(q),
            format: q.format.clone(),
            min: q.min,
            max: q.max,
            default_value: q.default_value.clone(),
        }),
        ChatInputQuestion::Number(q) => QuestionView::Number(number(q)),
        ChatInputQuestion::Integer(q) => QuestionView::Integer(number(q)),
        ChatInputQuestion::Boolean(q) => {
            QuestionView::Boolean(BooleanQuestion { common: common!(q), default_value: q.default_value })
        }
        ChatInputQuestion::SingleSelect(q) => QuestionView::SingleSelect(SelectQuestion {
            common: common!(q),
            options: options(&q.options),
            allow_freeform_input: q.allow_freeform_input,
            min: None,
            max: None,
        }),
        ChatInputQuestion::MultiSelect(q) => QuestionView::MultiSelect(SelectQuestion {
            common: common!(q),
            options: options(&q.options),
            allow_freeform_input: q.allow_freeform_input,
            min: q.min,
            max: q.max,
        }),
        ChatInputQuestion::Unknown(_) => return None,
    })
}

impl AnswerValue {
    fn from_ahp(v: &ChatInputAnswerValue) -> Option<Self> {
        Some(match v {
            ChatInputAnswerValue::Text(t) => Self::Text { value: t.value.clone() },
            ChatInputAnswerValue::Number(n) => Self::Number { value: n.value },
            ChatInputAnswerValue::Boolean(b) => Self::Boolean { value: b.value },
            ChatInputAnswerValue::Selected(s) => {
                Self::Selected { value: s.value.clone(), freeform_values: s.freeform_values.clone() }
            }
            ChatInputAnswerValue::SelectedMany(s) => {
                Self::SelectedMany { value: s.value.clone(), freeform_values: s.freeform_values.clone() }
            }
            ChatInputAnswerValue::Unknown(_) => return None,
        })
    }
}

impl From<AnswerValue> for ChatInputAnswerValue {
    fn from(v: AnswerValue) -> Self {
        match v {
            AnswerValue::Text { value } => Self::Text(ChatInputTextAnswerValue { value }),
            AnswerValue::Number { value } => Self::Number(ChatInputNumberAnswerValue { value }),
            AnswerValue::Boolean { value } => Self::Boolean(ChatInputBooleanAnswerValue { value }),
            AnswerValue::Selected { value, freeform_values } => {
                Self::Selected(ChatInputSelectedAnswerValue { value, freeform_values })
            }
            AnswerValue::SelectedMany { value, freeform_values } => {
                Self::SelectedMany(ChatInputSelectedManyAnswerValue { value, freeform_values })
            }
        }
    }
}

impl AnswerView {
    /// The view of a synced answer; values of a newer protocol are left out.
    pub fn from_ahp(a: &ChatInputAnswer) -> Option<Self> {
        Some(match a {
            ChatInputAnswer::Draft(d) => Self::Draft { value: AnswerValue::from_ahp(&d.value)? },
            ChatInputAnswer::Submitted(s) => Self::Submitted { value: AnswerValue::from_ahp(&s.value)? },
            ChatInputAnswer::Skipped(s) => Self::Skipped { freeform_values: s.freeform_values.clone() },
        })
    }
}

impl From<AnswerView> for ChatInputAnswer {
    fn from(a: AnswerView) -> Self {
        match a {
            AnswerView::Draft { value } => Self::Draft(ChatInputAnswered { value: value.into() }),
            AnswerView::Submitted { value } => Self::Submitted(ChatInputAnswered { value: value.into() }),
            AnswerView::Skipped { freeform_values } => Self::Skipped(ChatInputSkipped { freeform_values }),
        }
    }
}

/// Answers from the UI, for `chat/inputCompleted`.
pub fn answers_to_ahp(answers: BTreeMap<String, AnswerView>) -> HashMap<String, ChatInputAnswer> {
    answers.into_iter().map(|(id, a)| (id, a.into())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_keep_their_wire_shape_both_ways() {
        for wire in [
            json!({"state": "draft", "value": {"kind": "text", "value": "MIT"}}),
            json!({"state": "submitted", "value": {"kind": "selected-many", "value": ["a"], "freeformValues": ["z"]}}),
            json!({"state": "submitted", "value": {"kind": "number", "value": 2.5}}),
            json!({"state": "skipped"}),
        ] {
            let view: AnswerView = serde_json::from_value(wire.clone()).unwrap();
            let ahp: ChatInputAnswer = view.clone().into();
            assert_eq!(serde_json::to_value(&ahp).unwrap(), wire, "the host gets what the UI sent");
            assert_eq!(AnswerView::from_ahp(&ahp), Some(view.clone()));
            assert_eq!(serde_json::to_value(&view).unwrap(), wire, "the UI sees what the host holds");
        }
    }

    #[test]
    fn a_request_keeps_its_questions_and_answers() {
        let request: ChatInputRequest = serde_json::from_value(json!({"id": "in-1", "message": "License?",
            "questions": [{"kind": "single-select", "id": "q", "message": "Pick", "options": [{"id": "mit", "label": "MIT", "recommended": true}]},
                          {"kind": "from-the-future", "id": "f"}],
            "answers": {"q": {"state": "draft", "value": {"kind": "selected", "value": "mit"}}}}))
        .unwrap();
        let view = InputRequestView::from(&request);
        let v = serde_json::to_value(&view).unwrap();
        assert_eq!(v["questions"].as_array().unwrap().len(), 1, "unknown kinds are left out: {v}");
        assert_eq!(v["questions"][0]["kind"], "single-select");
        assert_eq!(v["questions"][0]["options"][0]["recommended"], true);
        assert_eq!(v["answers"]["q"]["value"]["value"], "mit");
    }
}
