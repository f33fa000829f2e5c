//! The game state machine: who starts, turns, keeps, holds, boards,
//! overtime and the end of the game. The state owns its seeded ChaCha
//! generator, so a seed plus the list of actions replays a game exactly.

use crate::dice::{DiceMask, Face};
use crate::scoring::{
    Combos, Keep, all_scoring_keep, best_keep, faces_of, score_keep, valid_keeps, what_scores,
};
use crate::settings::{JokerRule, Settings};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

/// Most players a game may seat.
pub const MAX_PLAYERS: usize = 16;

/// What the player to act can do.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Start the turn by rolling all five dice.
    Roll,
    /// Set these rolled dice aside (every one must score) and roll the
    /// others; if that makes all five dice scored, roll all five again.
    Keep(DiceMask),
    /// End the turn and bank its points, scoring the rolled dice the best
    /// way.
    Hold,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Roll => f.write_str("roll"),
            Action::Keep(m) => write!(f, "keep {m}"),
            Action::Hold => f.write_str("hold"),
        }
    }
}

/// A fixed-capacity list of actions (no allocation).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ActionList {
    items: [Action; 33],
    len: usize,
}

impl ActionList {
    fn new() -> ActionList {
        ActionList {
            items: [Action::Roll; 33],
            len: 0,
        }
    }

    fn push(&mut self, a: Action) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = a;
            self.len += 1;
        }
    }

    /// The actions as a slice.
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..self.len]
    }

    /// Whether `a` is in the list.
    pub fn contains(&self, a: Action) -> bool {
        self.as_slice().contains(&a)
    }

    /// Number of actions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none (the game is over).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Where one of the five dice is in the current turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DieState {
    /// Not rolled yet this cycle (turn start, or after all five scored).
    Idle,
    /// Set aside earlier this cycle; its points are in the turn total.
    Held,
    /// Showing from the last roll, waiting to be kept or rerolled.
    Rolled,
}

/// The turn in progress.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Turn {
    /// The five dice's faces (meaningful unless `Idle`).
    pub dice: [Face; 5],
    /// Each die's state.
    pub states: [DieState; 5],
    /// Points won this turn by the dice kept so far (not the last roll).
    pub points: u32,
    /// Points earned by the dice now held (given up if they join a five of a
    /// kind or a straight).
    pub held_points: u32,
    /// Rolls made this turn.
    pub rolls: u32,
}

impl Turn {
    fn fresh() -> Turn {
        Turn {
            dice: [Face::One; 5],
            states: [DieState::Idle; 5],
            points: 0,
            held_points: 0,
            rolls: 0,
        }
    }

    /// The dice in a given state.
    pub fn mask(&self, state: DieState) -> DiceMask {
        DiceMask(
            (0..5)
                .filter(|&i| self.states[i] == state)
                .fold(0u8, |m, i| m | (1 << i)),
        )
    }

    /// Every allowed keep of the last roll.
    pub fn keeps(&self) -> Vec<Keep> {
        valid_keeps(
            &self.dice,
            self.mask(DieState::Held),
            self.held_points,
            self.mask(DieState::Rolled),
        )
        .collect()
    }

    /// The best keep of the last roll (what holding banks), if it scores.
    pub fn best_keep(&self) -> Option<Keep> {
        best_keep(
            &self.dice,
            self.mask(DieState::Held),
            self.held_points,
            self.mask(DieState::Rolled),
        )
    }

    /// The keep of every scoring die of the last roll (what "pick all
    /// scoring dice" picks), if it scores.
    pub fn all_scoring_keep(&self) -> Option<Keep> {
        all_scoring_keep(
            &self.dice,
            self.mask(DieState::Held),
            self.held_points,
            self.mask(DieState::Rolled),
        )
    }

    /// Scores keeping `mask` of the last roll, if allowed.
    pub fn score_keep(&self, mask: DiceMask) -> Option<Keep> {
        let rolled = self.mask(DieState::Rolled);
        if mask.is_empty() || !mask.is_subset_of(rolled) {
            return None;
        }
        let (held, hn) = faces_of(&self.dice, self.mask(DieState::Held));
        let (kept, kn) = faces_of(&self.dice, mask);
        score_keep(&held[..hn], self.held_points, &kept[..kn], rolled.len())
            .map(|k| Keep { mask, ..k })
    }

    /// What holding now would bank (turn points plus the best keep).
    pub fn bank_value(&self) -> Option<u32> {
        self.best_keep()
            .map(|k| (i64::from(self.points) + k.gain()).max(0) as u32)
    }
}

/// Where the current turn is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// The player must roll all five dice.
    Start,
    /// The last roll scored: keep and roll on, or hold.
    Rolled,
    /// The game is over.
    Over,
}

/// Who acts next.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ToAct {
    /// This seat chooses an action. (Dice rolls are resolved inside
    /// [`State::apply`] from the state's own generator.)
    Seat(usize),
    /// The game is over and this seat won.
    GameOver {
        /// The winning seat.
        winner: usize,
    },
}

/// One player's standing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlayerScore {
    /// Banked points.
    pub score: u32,
    /// Whether the player has banked a first turn of at least the on-board
    /// threshold.
    pub on_board: bool,
    /// Turns played.
    pub turns: u32,
}

/// What happened when an action was applied, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Dice were rolled; `rolled` says which positions.
    Rolled {
        /// Seat rolling.
        seat: usize,
        /// All five faces after the roll.
        dice: [Face; 5],
        /// Which positions were rolled.
        rolled: DiceMask,
    },
    /// Dice were set aside.
    Kept {
        /// Seat keeping.
        seat: usize,
        /// The dice kept.
        mask: DiceMask,
        /// Their combinations.
        combos: Combos,
        /// Points of held dice given up for a five of a kind or straight.
        forgotten: u32,
        /// Turn total after the keep.
        turn_points: u32,
    },
    /// All five dice have scored: the next roll uses all five again.
    AllFiveScored {
        /// Seat.
        seat: usize,
    },
    /// The roll scored nothing: the turn is over and its points are lost.
    Bust {
        /// Seat.
        seat: usize,
        /// Points lost.
        lost: u32,
    },
    /// The turn was banked.
    Banked {
        /// Seat.
        seat: usize,
        /// Combinations of the final roll.
        combos: Combos,
        /// Points banked this turn.
        points: u32,
        /// New score.
        score: u32,
        /// Whether this turn got the player on board.
        got_on_board: bool,
    },
    /// Somebody has reached the target but does not lead by enough.
    Overtime {
        /// Seat in the lead (of players tied at the top, the first seat).
        leader: usize,
        /// Their lead over second place: 0 when the top is tied.
        lead: u32,
    },
    /// A new turn starts.
    TurnStarted {
        /// Seat to play.
        seat: usize,
    },
    /// The game is over.
    GameOver {
        /// Winning seat.
        winner: usize,
    },
}

/// Events of one action.
pub type Events = Vec<Event>;

/// Why an action was refused, as a sentence for the player.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IllegalAction {
    /// Nothing can be done once the game is over.
    #[error("The game is over.")]
    GameOver,
    /// Another seat is to play.
    #[error("It is not your turn: waiting for player {}.", .current + 1)]
    NotYourTurn {
        /// The seat to play.
        current: usize,
    },
    /// Keep or hold before the first roll.
    #[error(
        "Roll the dice first: every turn starts by rolling all five dice, so there is nothing to keep or hold yet."
    )]
    RollFirst,
    /// Roll when the dice already show.
    #[error(
        "The dice are already rolled: keep some scoring dice and roll the others, or hold to bank your points."
    )]
    AlreadyRolled,
    /// Keep of nothing.
    #[error("Pick at least one scoring die to keep before rolling again.")]
    EmptyKeep,
    /// Keep of dice that were not just rolled.
    #[error("You can only keep dice from this roll; the held dice stay where they are.")]
    NotRolled,
    /// Keep of dice that do not all score.
    #[error(
        "{faces} is not a scoring keep: every die you keep must be {}.",
        what_scores(*.jokers)
    )]
    DoesNotScore {
        /// The faces, e.g. "1 2".
        faces: String,
        /// Whether the game is played with Jokers dice (a lone Joker
        /// scores).
        jokers: bool,
    },
    /// Hold before being on board.
    #[error(
        "You are not on board yet: your first banked turn needs at least {needed} points, and this turn has {total}. Roll again."
    )]
    NotOnBoard {
        /// Turn total if held now.
        total: u32,
        /// Threshold.
        needed: u32,
    },
    /// Hold that would cross the target with too small a turn.
    #[error(
        "To cross {target} points you need a turn of at least {needed}, and this turn has {total}. Roll again."
    )]
    OffBoard {
        /// Turn total if held now.
        total: u32,
        /// Threshold.
        needed: u32,
        /// The game's target.
        target: u32,
    },
}

/// Why a game could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// Zero players, or more than [`MAX_PLAYERS`].
    #[error("a game needs 1 to {MAX_PLAYERS} players, not {0}")]
    Players(usize),
    /// A target of zero.
    #[error("the target score must be more than zero")]
    Target,
}

/// The whole truth of a game.
#[derive(Clone, Debug)]
pub struct State {
    settings: Settings,
    jokers: bool,
    pub(crate) seed: u64,
    players: Vec<PlayerScore>,
    /// The seat that started the game.
    first: usize,
    current: usize,
    turn: Turn,
    phase: Phase,
    winner: Option<usize>,
    pub(crate) rng: ChaCha8Rng,
}

impl PartialEq for State {
    /// Equal when everything on the table and the generator's position are.
    fn eq(&self, o: &State) -> bool {
        self.view(0) == o.view(0) && self.seed == o.seed && self.rng == o.rng
    }
}

/// What a seat may see. In cubes everything on the table is public, so this
/// is the state without its random generator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct View {
    /// The seat this view is for.
    pub seat: usize,
    /// Game settings.
    pub settings: Settings,
    /// Whether this is a Jokers game.
    pub jokers: bool,
    /// Every player's standing, by seat.
    pub players: Vec<PlayerScore>,
    /// The seat whose turn it is.
    pub current: usize,
    /// The turn in progress.
    pub turn: Turn,
    /// Where the turn is.
    pub phase: Phase,
    /// The winner, once the game is over.
    pub winner: Option<usize>,
}

impl View {
    /// Whether the seat to act may take `action` now, and if not the
    /// engine's sentence for why (everything on the table is public, so the
    /// view says as much as the state).
    pub fn check(&self, action: Action) -> Result<(), IllegalAction> {
        if self.players.get(self.current).is_none() {
            return Err(IllegalAction::GameOver);
        }
        State {
            settings: self.settings.clone(),
            jokers: self.jokers,
            seed: 0,
            players: self.players.clone(),
            first: 0,
            current: self.current,
            turn: self.turn.clone(),
            phase: self.phase,
            winner: self.winner,
            rng: ChaCha8Rng::seed_from_u64(0),
        }
        .check(action)
    }

    /// Whether holding is allowed now, and if not why.
    pub fn can_hold(&self) -> Result<u32, IllegalAction> {
        // A view comes from the engine, but one read from elsewhere may name
        // a seat that does not exist: treat it as a finished game.
        let me = self
            .players
            .get(self.current)
            .ok_or(IllegalAction::GameOver)?;
        hold_check(&self.settings, me, self.phase, &self.turn)
    }
}

/// The seat that starts a game of `players` on `seed`, drawn fairly: the
/// rules name nobody, and a fixed first seat would hand its player the
/// first mover's edge (about 52% of two-player games) every game. Drawn on
/// a stream of its own of the seed's generator, so a seed's dice do not
/// depend on it and seed + actions still replay the game.
pub fn first_seat(seed: u64, players: usize) -> usize {
    let mut draw = ChaCha8Rng::seed_from_u64(seed);
    draw.set_stream(1);
    let n = u32::try_from(players.max(1)).unwrap_or(u32::MAX);
    crate::dice::uniform(&mut draw, n) as usize
}

fn hold_check(
    settings: &Settings,
    me: &PlayerScore,
    phase: Phase,
    turn: &Turn,
) -> Result<u32, IllegalAction> {
    match phase {
        Phase::Over => return Err(IllegalAction::GameOver),
        Phase::Start => return Err(IllegalAction::RollFirst),
        Phase::Rolled => {}
    }
    let total = turn.bank_value().ok_or(IllegalAction::RollFirst)?;
    if !me.on_board && total < settings.on_board {
        return Err(IllegalAction::NotOnBoard {
            total,
            needed: settings.on_board,
        });
    }
    if me.score < settings.target
        && me.score + total >= settings.target
        && total < settings.off_board
    {
        return Err(IllegalAction::OffBoard {
            total,
            needed: settings.off_board,
            target: settings.target,
        });
    }
    Ok(total)
}

impl State {
    /// A new game for `players` seats. The seed drives every dice roll,
    /// which seat starts ([`first_seat`]) and, under
    /// [`JokerRule::OneGameInSix`], whether Jokers dice are used.
    pub fn new(settings: Settings, players: usize, seed: u64) -> Result<State, SetupError> {
        if players == 0 || players > MAX_PLAYERS {
            return Err(SetupError::Players(players));
        }
        if settings.target == 0 {
            return Err(SetupError::Target);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let jokers = match settings.jokers {
            JokerRule::Never => false,
            JokerRule::Always => true,
            JokerRule::OneGameInSix => crate::dice::uniform(&mut rng, 6) == 0,
        };
        let first = first_seat(seed, players);
        Ok(State {
            settings,
            jokers,
            seed,
            players: vec![PlayerScore::default(); players],
            first,
            current: first,
            turn: Turn::fresh(),
            phase: Phase::Start,
            winner: None,
            rng,
        })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Whether this game uses Jokers dice (announce it at the start).
    pub fn jokers(&self) -> bool {
        self.jokers
    }

    /// The seed the game was started with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The seat that started the game (drawn from the seed).
    pub fn first(&self) -> usize {
        self.first
    }

    /// Players' standings by seat.
    pub fn players(&self) -> &[PlayerScore] {
        &self.players
    }

    /// The turn in progress.
    pub fn turn(&self) -> &Turn {
        &self.turn
    }

    /// Where the turn is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The seat whose turn it is.
    pub fn current(&self) -> usize {
        self.current
    }

    /// Who acts next.
    pub fn to_act(&self) -> ToAct {
        match self.winner {
            Some(winner) => ToAct::GameOver { winner },
            None => ToAct::Seat(self.current),
        }
    }

    /// The winner, once the game is over.
    pub fn winner(&self) -> Option<usize> {
        self.winner
    }

    /// What `seat` may see.
    pub fn view(&self, seat: usize) -> View {
        View {
            seat,
            settings: self.settings.clone(),
            jokers: self.jokers,
            players: self.players.clone(),
            current: self.current,
            turn: self.turn.clone(),
            phase: self.phase,
            winner: self.winner,
        }
    }

    /// Every action the player to act may take now.
    pub fn legal_actions(&self) -> ActionList {
        let mut out = ActionList::new();
        match self.phase {
            Phase::Over => {}
            Phase::Start => out.push(Action::Roll),
            Phase::Rolled => {
                for k in valid_keeps(
                    &self.turn.dice,
                    self.turn.mask(DieState::Held),
                    self.turn.held_points,
                    self.turn.mask(DieState::Rolled),
                ) {
                    out.push(Action::Keep(k.mask));
                }
                if self.can_hold().is_ok() {
                    out.push(Action::Hold);
                }
            }
        }
        out
    }

    /// Whether the player to act may hold now: the points it would bank.
    pub fn can_hold(&self) -> Result<u32, IllegalAction> {
        hold_check(
            &self.settings,
            &self.players[self.current],
            self.phase,
            &self.turn,
        )
    }

    /// Whether the player to act may take `action` now, and if not why
    /// (changes nothing).
    pub fn check(&self, action: Action) -> Result<(), IllegalAction> {
        // The refusals come before any die is rolled, so a copy told its
        // dice decides without touching the generator.
        self.clone()
            .apply_inner(action, Some([Face::One; 5]))
            .map(|_| ())
    }

    /// Applies an action of the player to act, rolling dice from the game's
    /// own generator.
    pub fn apply(&mut self, action: Action) -> Result<Events, IllegalAction> {
        self.apply_inner(action, None)
    }

    /// Applies an action with the outcome of its roll given: `faces[i]` is
    /// used for each die `i` that is rolled. For tests and analysis; a game
    /// driven this way no longer replays from its seed.
    pub fn apply_with_dice(
        &mut self,
        action: Action,
        faces: [Face; 5],
    ) -> Result<Events, IllegalAction> {
        self.apply_inner(action, Some(faces))
    }

    fn apply_inner(
        &mut self,
        action: Action,
        forced: Option<[Face; 5]>,
    ) -> Result<Events, IllegalAction> {
        if self.phase == Phase::Over {
            return Err(IllegalAction::GameOver);
        }
        let mut ev = Events::new();
        match action {
            Action::Roll => {
                if self.phase != Phase::Start {
                    return Err(IllegalAction::AlreadyRolled);
                }
                self.roll(DiceMask::ALL, forced, &mut ev);
            }
            Action::Keep(mask) => {
                if self.phase != Phase::Rolled {
                    return Err(IllegalAction::RollFirst);
                }
                if mask.is_empty() {
                    return Err(IllegalAction::EmptyKeep);
                }
                if !mask.is_subset_of(self.turn.mask(DieState::Rolled)) {
                    return Err(IllegalAction::NotRolled);
                }
                let keep =
                    self.turn
                        .score_keep(mask)
                        .ok_or_else(|| IllegalAction::DoesNotScore {
                            faces: mask
                                .positions()
                                .map(|i| self.turn.dice[i].symbol().to_string())
                                .collect::<Vec<_>>()
                                .join(" "),
                            jokers: self.jokers,
                        })?;
                let seat = self.current;
                self.turn.points = self.turn.points - keep.forgotten + keep.points;
                self.turn.held_points = self.turn.held_points - keep.forgotten + keep.points;
                for i in mask.positions() {
                    self.turn.states[i] = DieState::Held;
                }
                ev.push(Event::Kept {
                    seat,
                    mask,
                    combos: keep.combos,
                    forgotten: keep.forgotten,
                    turn_points: self.turn.points,
                });
                let idle = self.turn.mask(DieState::Rolled);
                if idle.is_empty() {
                    ev.push(Event::AllFiveScored { seat });
                    self.turn.states = [DieState::Idle; 5];
                    self.turn.held_points = 0;
                    self.roll(DiceMask::ALL, forced, &mut ev);
                } else {
                    self.roll(idle, forced, &mut ev);
                }
            }
            Action::Hold => {
                let total = self.can_hold()?;
                let combos = self.turn.best_keep().map(|k| k.combos).unwrap_or_default();
                let seat = self.current;
                let p = &mut self.players[seat];
                let got_on_board = !p.on_board;
                p.on_board = true;
                p.score += total;
                p.turns += 1;
                let score = p.score;
                ev.push(Event::Banked {
                    seat,
                    combos,
                    points: total,
                    score,
                    got_on_board,
                });
                if score >= self.settings.target {
                    match self.best_other(seat) {
                        Some(second) if score < second + self.settings.overtime_lead => {
                            // The lead is the top score over the best of the
                            // others, whoever banked: 0 on a tie (the banker
                            // may be level with the leader, or behind two
                            // players whose own gap is what matters).
                            if let Some(leader) = (0..self.players.len())
                                .max_by_key(|&s| (self.players[s].score, usize::MAX - s))
                            {
                                let top = self.players[leader].score;
                                let runner_up = self.best_other(leader).unwrap_or(0);
                                ev.push(Event::Overtime {
                                    leader,
                                    lead: top.saturating_sub(runner_up),
                                });
                            }
                        }
                        _ => {
                            self.winner = Some(seat);
                            self.phase = Phase::Over;
                            ev.push(Event::GameOver { winner: seat });
                            return Ok(ev);
                        }
                    }
                }
                self.next_turn(&mut ev);
            }
        }
        Ok(ev)
    }

    /// The best score among the players other than `seat` (`None` alone
    /// at the table): what a banker must lead to win, and what the leader
    /// leads by in overtime.
    fn best_other(&self, seat: usize) -> Option<u32> {
        self.players
            .iter()
            .enumerate()
            .filter(|&(s, _)| s != seat)
            .map(|(_, p)| p.score)
            .max()
    }

    fn roll(&mut self, which: DiceMask, forced: Option<[Face; 5]>, ev: &mut Events) {
        for i in which.positions() {
            self.turn.dice[i] = match forced {
                Some(f) => f[i],
                None => Face::roll(&mut self.rng, self.jokers),
            };
            self.turn.states[i] = DieState::Rolled;
        }
        self.turn.rolls += 1;
        let seat = self.current;
        ev.push(Event::Rolled {
            seat,
            dice: self.turn.dice,
            rolled: which,
        });
        if self.turn.best_keep().is_none() {
            ev.push(Event::Bust {
                seat,
                lost: self.turn.points,
            });
            self.players[seat].turns += 1;
            self.next_turn(ev);
        } else {
            self.phase = Phase::Rolled;
        }
    }

    fn next_turn(&mut self, ev: &mut Events) {
        self.current = (self.current + 1) % self.players.len();
        self.turn = Turn::fresh();
        self.phase = Phase::Start;
        ev.push(Event::TurnStarted { seat: self.current });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Face::*;

    /// A game in which seat 0 starts, whoever the seed draws: these tests
    /// are about the turn, not about who takes the first one.
    fn game(players: usize) -> State {
        let mut s = State::new(Settings::standard(), players, 1).expect("valid");
        s.first = 0;
        s.current = 0;
        s
    }

    #[test]
    fn the_first_player_is_drawn_from_the_seed() {
        // Seat 0 used to start every game, and people sit first: they won
        // about 52% of their games as the first mover.
        for players in 1..=4usize {
            let mut starts = vec![0u32; players];
            for seed in 0..4_000u64 {
                let s = State::new(Settings::standard(), players, seed).expect("ok");
                assert_eq!(s.current(), s.first());
                assert_eq!(s.to_act(), ToAct::Seat(s.first()));
                starts[s.first()] += 1;
            }
            let fair = 4_000 / players as u32;
            for (seat, &n) in starts.iter().enumerate() {
                // Within about five standard deviations of a fair share.
                assert!(
                    n.abs_diff(fair) < 160,
                    "{players} players: seat {seat} starts {n} of 4000"
                );
            }
        }
        // The draw does not touch the dice: the same seed rolls the same
        // dice whoever starts, and a seed and its actions replay the game.
        let mut a = State::new(Settings::standard(), 2, 7).expect("ok");
        let mut b = State::new(Settings::standard(), 3, 7).expect("ok");
        let (ea, eb) = (a.apply(Action::Roll), b.apply(Action::Roll));
        let dice = |e: Result<Events, IllegalAction>| match e.expect("roll").first() {
            Some(Event::Rolled { dice, .. }) => *dice,
            other => panic!("{other:?}"),
        };
        assert_eq!(dice(ea), dice(eb));
        let mut record = crate::GameRecord::new(Settings::standard(), 2, 7);
        record.actions.push(Action::Roll);
        assert!(record.replay().expect("replays") == a);
    }

    /// An on-board player's record with `score` banked over `turns` turns.
    fn banked(score: u32, turns: u32) -> PlayerScore {
        PlayerScore {
            score,
            on_board: true,
            turns,
        }
    }

    #[test]
    fn bust_loses_the_turn() {
        let mut s = game(2);
        s.apply_with_dice(Action::Roll, [One, Two, Three, Three, Six])
            .expect("roll");
        assert_eq!(s.phase(), Phase::Rolled);
        let ev = s
            .apply_with_dice(
                Action::Keep(DiceMask::of(&[0])),
                [One, Two, Two, Three, Six],
            )
            .expect("keep");
        assert!(ev.contains(&Event::Bust { seat: 0, lost: 100 }), "{ev:?}");
        assert_eq!(s.current(), 1);
        assert_eq!(s.phase(), Phase::Start);
        assert_eq!(s.players()[0].score, 0);
    }

    #[test]
    fn getting_on_board_needs_500() {
        let mut s = game(2);
        s.apply_with_dice(Action::Roll, [One, One, Five, Three, Six])
            .expect("roll");
        assert_eq!(
            s.apply(Action::Hold),
            Err(IllegalAction::NotOnBoard {
                total: 250,
                needed: 500
            })
        );
        assert!(!s.legal_actions().contains(Action::Hold));
        let msg = s.apply(Action::Hold).unwrap_err().to_string();
        assert!(msg.contains("not on board"), "{msg}");
        s.apply_with_dice(
            Action::Keep(DiceMask::of(&[0, 1, 2])),
            [One, One, Five, One, One],
        )
        .expect("keep");
        // 250 + two Ones kept as singles later: hold banks 250 + 200.
        assert_eq!(
            s.can_hold(),
            Err(IllegalAction::NotOnBoard {
                total: 450,
                needed: 500
            })
        );
    }

    #[test]
    fn hold_banks_the_best_scoring_and_passes_the_turn() {
        let mut s = game(2);
        s.apply_with_dice(Action::Roll, [One, One, One, Five, Six])
            .expect("roll");
        let ev = s.apply(Action::Hold).expect("hold");
        assert!(matches!(
            ev[0],
            Event::Banked {
                points: 1050,
                score: 1050,
                got_on_board: true,
                ..
            }
        ));
        assert_eq!(s.current(), 1);
        assert!(s.players()[0].on_board);
    }

    #[test]
    fn all_five_scored_rolls_all_five_again() {
        let mut s = game(1);
        s.apply_with_dice(Action::Roll, [One, One, One, Two, Three])
            .expect("roll");
        s.apply_with_dice(
            Action::Keep(DiceMask::of(&[0, 1, 2])),
            [One, One, One, Five, Five],
        )
        .expect("keep");
        let ev = s
            .apply_with_dice(
                Action::Keep(DiceMask::of(&[3, 4])),
                [Two, Three, Four, Six, Six],
            )
            .expect("keep");
        assert!(ev.contains(&Event::AllFiveScored { seat: 0 }));
        // Two Three Four Six Six scores nothing: the whole 1100 is lost.
        assert!(
            ev.contains(&Event::Bust {
                seat: 0,
                lost: 1100
            }),
            "{ev:?}"
        );
    }

    #[test]
    fn keep_refusals_explain_themselves() {
        let mut s = game(2);
        assert_eq!(s.apply(Action::Hold), Err(IllegalAction::RollFirst));
        s.apply_with_dice(Action::Roll, [One, Two, Three, Three, Six])
            .expect("roll");
        assert_eq!(s.apply(Action::Roll), Err(IllegalAction::AlreadyRolled));
        assert_eq!(
            s.apply(Action::Keep(DiceMask::EMPTY)),
            Err(IllegalAction::EmptyKeep)
        );
        let e = s.apply(Action::Keep(DiceMask::of(&[0, 1]))).unwrap_err();
        assert_eq!(
            e,
            IllegalAction::DoesNotScore {
                faces: "1 2".into(),
                jokers: false
            }
        );
        assert!(e.to_string().starts_with("1 2 is not a scoring keep"));
        s.apply_with_dice(
            Action::Keep(DiceMask::of(&[0])),
            [One, Five, Three, Three, Six],
        )
        .expect("keep");
        assert_eq!(
            s.apply(Action::Keep(DiceMask::of(&[0]))),
            Err(IllegalAction::NotRolled)
        );
    }

    #[test]
    fn a_keep_that_does_not_score_lists_what_scores_in_this_game() {
        // The refusal used to leave out small straights and Jokers.
        for (jokers, rule) in [(false, JokerRule::Never), (true, JokerRule::Always)] {
            let mut s = State::new(Settings::standard().with_jokers(rule), 2, 1).expect("ok");
            s.apply_with_dice(Action::Roll, [One, Two, Three, Three, Six])
                .expect("roll");
            let e = s
                .apply(Action::Keep(DiceMask::of(&[1, 2])))
                .expect_err("2 3 does not score")
                .to_string();
            assert!(e.starts_with("2 3 is not a scoring keep: every die"), "{e}");
            assert!(e.contains("a small straight"), "{e}");
            assert!(e.contains("a One, a Five,"), "{e}");
            assert!(e.contains("three or more of a kind"), "{e}");
            assert_eq!(e.contains("a Joker"), jokers, "{e}");
        }
    }

    #[test]
    fn keeping_before_the_first_roll_says_there_is_nothing_to_keep() {
        let mut s = game(2);
        let e = s
            .apply(Action::Keep(DiceMask::of(&[0])))
            .expect_err("nothing rolled");
        assert_eq!(e, IllegalAction::RollFirst);
        assert!(e.to_string().contains("nothing to keep"), "{e}");
    }

    #[test]
    fn getting_off_board_needs_500_in_the_crossing_turn() {
        let mut s = game(2);
        s.players[0] = banked(9_800, 9);
        s.players[1] = banked(9_700, 9);
        s.apply_with_dice(Action::Roll, [One, One, Five, Three, Six])
            .expect("roll");
        assert_eq!(
            s.can_hold(),
            Err(IllegalAction::OffBoard {
                total: 250,
                needed: 500,
                target: 10_000
            })
        );
        s.apply_with_dice(
            Action::Keep(DiceMask::of(&[0, 1, 2])),
            [One, One, Five, Five, Two],
        )
        .expect("keep");
        assert!(s.can_hold().is_err(), "300 is not enough to cross");
        s.apply_with_dice(
            Action::Keep(DiceMask::of(&[3])),
            [One, One, Five, Five, One],
        )
        .expect("keep");
        assert!(s.can_hold().is_err(), "400 is not enough to cross");
        s.apply_with_dice(
            Action::Keep(DiceMask::of(&[4])),
            [One, One, One, Two, Three],
        )
        .expect("keep");
        assert_eq!(s.can_hold(), Ok(1400));
        let ev = s.apply(Action::Hold).expect("hold");
        assert!(ev.contains(&Event::GameOver { winner: 0 }), "{ev:?}");
        assert_eq!(s.to_act(), ToAct::GameOver { winner: 0 });
        assert!(s.legal_actions().is_empty());
        assert_eq!(s.apply(Action::Roll), Err(IllegalAction::GameOver));
    }

    #[test]
    fn below_target_small_holds_are_fine_once_on_board() {
        let mut s = game(2);
        s.players[0] = banked(9_000, 9);
        s.apply_with_dice(Action::Roll, [Five, Two, Three, Three, Six])
            .expect("roll");
        assert_eq!(s.can_hold(), Ok(50));
    }

    #[test]
    fn overtime_until_a_lead_of_250() {
        let mut s = game(2);
        s.players[0] = banked(9_600, 9);
        s.players[1] = banked(10_000, 9);
        s.apply_with_dice(Action::Roll, [Five, Five, Five, Two, Three])
            .expect("roll");
        let ev = s.apply(Action::Hold).expect("hold");
        assert!(
            ev.contains(&Event::Overtime {
                leader: 0,
                lead: 100
            }),
            "{ev:?}"
        );
        assert_eq!(s.to_act(), ToAct::Seat(1));
        s.apply_with_dice(Action::Roll, [Five, Two, Three, Three, Six])
            .expect("roll");
        let ev = s.apply(Action::Hold).expect("hold");
        assert!(
            ev.contains(&Event::Overtime {
                leader: 0,
                lead: 50
            }),
            "{ev:?}"
        );
        s.apply_with_dice(Action::Roll, [Five, Five, Five, Two, Three])
            .expect("roll");
        let ev = s.apply(Action::Hold).expect("hold");
        assert!(ev.contains(&Event::GameOver { winner: 0 }), "{ev:?}");
        assert_eq!(s.players()[0].score, 10_600);
    }

    #[test]
    fn overtime_on_a_tie_has_no_lead() {
        // The audit's "Overtime! X leads by 0": a bank that draws level.
        let mut s = game(2);
        s.players[0] = banked(10_000, 9);
        s.players[1] = banked(9_500, 8);
        s.current = 1;
        s.apply_with_dice(Action::Roll, [Five, Five, Five, Two, Three])
            .expect("roll");
        let ev = s.apply(Action::Hold).expect("hold");
        assert!(
            ev.contains(&Event::Overtime { leader: 0, lead: 0 }),
            "{ev:?}"
        );
        assert_eq!(s.winner(), None);
    }

    #[test]
    fn overtime_lead_is_over_second_place_not_over_the_banker() {
        // Rex leads Carla by 50; Sam banks to third place. The lead that
        // must reach 250 is Rex's 50 over Carla, not 100 over Sam.
        let mut s = game(3);
        for (k, score) in [10_600, 10_450, 10_550].into_iter().enumerate() {
            s.players[k] = banked(score, 9);
        }
        s.current = 1;
        s.apply_with_dice(Action::Roll, [Five, Two, Three, Three, Six])
            .expect("roll");
        let ev = s.apply(Action::Hold).expect("hold");
        assert!(
            ev.contains(&Event::Overtime {
                leader: 0,
                lead: 50
            }),
            "{ev:?}"
        );
    }

    #[test]
    fn jokers_one_game_in_six_is_drawn_from_the_seed() {
        let settings = Settings::standard().with_jokers(JokerRule::OneGameInSix);
        let n = (0..6000u64)
            .filter(|&seed| State::new(settings.clone(), 2, seed).expect("ok").jokers())
            .count();
        assert!((850..1150).contains(&n), "{n}");
        assert!(
            State::new(Settings::standard().with_jokers(JokerRule::Always), 2, 0)
                .expect("ok")
                .jokers()
        );
        assert_eq!(
            State::new(Settings::standard(), 0, 0).err(),
            Some(SetupError::Players(0))
        );
    }

    #[test]
    fn a_lone_joker_scores_nothing_but_saves_the_roll() {
        let mut s =
            State::new(Settings::standard().with_jokers(JokerRule::Always), 1, 3).expect("ok");
        s.apply_with_dice(Action::Roll, [Joker, Two, Three, Three, Six])
            .expect("roll");
        assert_eq!(s.phase(), Phase::Rolled);
        assert_eq!(s.turn().bank_value(), Some(0));
        assert_eq!(
            s.legal_actions().as_slice(),
            &[Action::Keep(DiceMask::of(&[0]))]
        );
    }
}
