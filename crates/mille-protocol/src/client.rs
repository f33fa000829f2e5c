//! The game side: seat a bot program that speaks the protocol. Every way
//! it can fail (cannot start, exits, hangs, answers something else) is a
//! [`ClientError`], never a panic, so a match runner can record a forfeit
//! and go on.

use crate::{DecideKind, Id, PROTOCOL, Request, decide_kind, request_line};
use mille_engine::view::Decision;
use mille_engine::{Action, Card, Kind, View};
use serde_json::Value;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What went wrong with an external bot.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The command line is empty or has an unclosed quote.
    #[error("bad bot command {0:?}")]
    BadCommand(String),
    /// The program could not be started.
    #[error("cannot start {command:?}: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The program exited or closed its output.
    #[error("the bot exited ({status}){stderr}")]
    Crashed {
        /// Its exit status, as far as known.
        status: String,
        /// The last lines it wrote to standard error.
        stderr: String,
    },
    /// No answer in time; the program was stopped.
    #[error("the bot did not answer within {0:?}")]
    Timeout(Duration),
    /// The answer is not a protocol answer to the request.
    #[error("the bot answered {line:?}: {why}")]
    Garbage {
        /// The line.
        line: String,
        /// What is wrong with it.
        why: String,
    },
    /// The bot answered with an error line.
    #[error("the bot answered an error: {0}")]
    BotError(String),
    /// Writing to the program failed.
    #[error("cannot write to the bot: {0}")]
    Io(#[from] std::io::Error),
}

/// Splits a command line into words, with '...' and "..." quoting and
/// backslash escapes (no other shell features).
pub fn split_command(cmd: &str) -> Result<Vec<String>, ClientError> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => match chars.next() {
                Some(n) => cur.push(n),
                None => return Err(ClientError::BadCommand(cmd.into())),
            },
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
        if quote.is_some() || !cur.is_empty() {
            in_word = true;
        }
    }
    if quote.is_some() {
        return Err(ClientError::BadCommand(cmd.into()));
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err(ClientError::BadCommand(cmd.into()));
    }
    Ok(words)
}

/// A running bot program.
pub struct ExternalBot {
    command: String,
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    next_id: Id,
    timeout: Duration,
    dead: bool,
}

impl ExternalBot {
    /// Starts `command` and greets it; each answer must come within
    /// `timeout`.
    pub fn spawn(command: &str, timeout: Duration) -> Result<ExternalBot, ClientError> {
        let words = split_command(command)?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ClientError::Spawn {
                command: command.into(),
                source,
            })?;
        let (tx, lines) = channel();
        if let Some(out) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(mut err) = child.stderr.take() {
            let keep = Arc::clone(&stderr);
            std::thread::spawn(move || {
                // Keep the last few lines for crash reports; read raw bytes
                // so that non-UTF-8 noise cannot stop the drain.
                let mut buf = Vec::new();
                let _ = err.read_to_end(&mut buf);
                let text = String::from_utf8_lossy(&buf);
                if let Ok(mut q) = keep.lock() {
                    for l in text.lines() {
                        q.push_back(l.to_string());
                        if q.len() > 5 {
                            q.pop_front();
                        }
                    }
                }
            });
        }
        let stdin = child.stdin.take();
        let mut bot = ExternalBot {
            command: command.into(),
            name: words[0].clone(),
            child,
            stdin,
            lines,
            stderr,
            next_id: 0,
            timeout,
            dead: false,
        };
        let answer = bot.ask(&Request::Hello { protocol: PROTOCOL })?;
        let name = answer
            .1
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string);
        match name {
            Some(n) => bot.name = n,
            None => {
                return Err(ClientError::Garbage {
                    line: answer.0,
                    why: "a hello answer needs a \"name\"".into(),
                });
            }
        }
        Ok(bot)
    }

    /// The name the bot gave.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The command that started it.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Whether the program failed and must be restarted.
    pub fn is_dead(&self) -> bool {
        self.dead
    }

    /// Asks the bot for a decision. A turn answer is a play or discard of
    /// a card it holds (its legality is the caller's to check).
    pub fn decide(&mut self, view: &View, decision: Decision) -> Result<Action, ClientError> {
        let kind = decide_kind(decision);
        let (line, obj) = self.ask(&Request::Decide {
            kind,
            view: Box::new(view.clone()),
        })?;
        let garbage = |why: &str| ClientError::Garbage {
            line: line.clone(),
            why: why.into(),
        };
        match kind {
            DecideKind::Turn => {
                let card_of = |v: &Value| -> Result<Card, ClientError> {
                    v.as_str()
                        .ok_or_else(|| garbage("a card id must be a string"))?
                        .parse::<Card>()
                        .map_err(|e| garbage(&e.to_string()))
                };
                if let Some(v) = obj.get("play") {
                    let card = card_of(v)?;
                    let own = view.seats.get(view.seat as usize).map_or(0, |s| s.team);
                    let target = if card.kind() == Kind::Hazard {
                        let t = obj
                            .get("target")
                            .and_then(Value::as_u64)
                            .ok_or_else(|| garbage("a hazard needs a \"target\" team"))?;
                        u8::try_from(t).map_err(|_| garbage("no such team"))?
                    } else {
                        own
                    };
                    Ok(Action::Play { card, team: target })
                } else if let Some(v) = obj.get("discard") {
                    Ok(Action::Discard(card_of(v)?))
                } else {
                    Err(garbage("a turn answer needs \"play\" or \"discard\""))
                }
            }
            DecideKind::CoupFourre(hazard) => {
                match obj.get("coup_fourre").and_then(Value::as_bool) {
                    Some(true) => Ok(hazard
                        .safety()
                        .map_or(Action::DeclineCoupFourre, |s| Action::CoupFourre(s.card()))),
                    Some(false) => Ok(Action::DeclineCoupFourre),
                    None => Err(garbage(
                        "a coup_fourre answer needs \"coup_fourre\": true or false",
                    )),
                }
            }
            DecideKind::Extension => match obj.get("extend").and_then(Value::as_bool) {
                Some(b) => Ok(Action::Extend(b)),
                None => Err(garbage(
                    "an extension answer needs \"extend\": true or false",
                )),
            },
        }
    }

    /// Sends a request and waits for its answer line.
    fn ask(
        &mut self,
        request: &Request,
    ) -> Result<(String, serde_json::Map<String, Value>), ClientError> {
        let result = self.ask_inner(request);
        if result.is_err() {
            // Whatever went wrong, the conversation is out of step now.
            self.kill();
        }
        result
    }

    fn ask_inner(
        &mut self,
        request: &Request,
    ) -> Result<(String, serde_json::Map<String, Value>), ClientError> {
        if self.dead {
            return Err(self.crashed());
        }
        let id = self.next_id;
        self.next_id += 1;
        let mut line = request_line(id, request);
        line.push('\n');
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.crashed());
        };
        if stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return Err(self.crashed());
        }
        let answer = match self.lines.recv_timeout(self.timeout) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) => return Err(ClientError::Timeout(self.timeout)),
            Err(RecvTimeoutError::Disconnected) => return Err(self.crashed()),
        };
        let garbage = |why: String| ClientError::Garbage {
            line: answer.clone(),
            why,
        };
        let value: Value =
            serde_json::from_str(&answer).map_err(|e| garbage(format!("not JSON: {e}")))?;
        let Value::Object(obj) = value else {
            return Err(garbage("not a JSON object".into()));
        };
        if obj.get("id").and_then(Value::as_i64) != Some(id) {
            return Err(garbage(format!("expected id {id}")));
        }
        if let Some(e) = obj.get("error") {
            return Err(ClientError::BotError(e.as_str().unwrap_or("?").to_string()));
        }
        Ok((answer, obj))
    }

    fn crashed(&mut self) -> ClientError {
        // Give the process a moment to finish dying so its status is known.
        let mut status = None;
        for _ in 0..20 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.dead = true;
        let stderr = self
            .stderr
            .lock()
            .map(|q| q.iter().cloned().collect::<Vec<_>>().join(" | "))
            .unwrap_or_default();
        ClientError::Crashed {
            status: status.map_or_else(|| "still running, output closed".into(), |s| s.to_string()),
            stderr: if stderr.is_empty() {
                String::new()
            } else {
                format!("; it said: {stderr}")
            },
        }
    }

    fn kill(&mut self) {
        self.dead = true;
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An external program at a table: it is asked every decision of its
/// seat (draws are automatic) and watches nothing (the protocol has no
/// such message: it reads the table from the views it is sent).
impl game_table::Bot<mille_engine::Mille> for ExternalBot {
    fn name(&self) -> &str {
        &self.name
    }
    fn decide(
        &mut self,
        observation: &mille_engine::Observation,
    ) -> Result<Action, game_table::BotError> {
        match observation.decision() {
            Some(decision) => ExternalBot::decide(self, &observation.view, decision)
                .map_err(|e| game_table::BotError(e.to_string())),
            None => Ok(Action::Draw),
        }
    }
}

impl Drop for ExternalBot {
    fn drop(&mut self) {
        // Closing standard input asks a well-behaved bot to exit; a
        // misbehaving one is killed.
        self.stdin = None;
        for _ in 0..10 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command("mille bot --level 'hard'").ok(),
            Some(vec![
                "mille".into(),
                "bot".into(),
                "--level".into(),
                "hard".into()
            ])
        );
        assert_eq!(
            split_command(r#"python3 -c "print(1)""#).ok(),
            Some(vec!["python3".into(), "-c".into(), "print(1)".into()])
        );
        assert!(split_command("  ").is_err());
        assert!(split_command("a 'b").is_err());
    }
}
