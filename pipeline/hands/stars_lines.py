"""The line grammar of a PokerStars-style hand body (PokerStars and GGPoker write the same one).

Three kinds of line: those that change the hand (seats, posts, actions, deals, pots), those that
carry facts Railbird keeps (chat, bounties, places, shown cards), and those known to change nothing
(`INFO`). A body line that is none of them rejects the hand with its number: an action Railbird does
not understand could move chips, and a hand silently half-read is worse than a hand rejected.
"""

from __future__ import annotations

import re

AMT = r"[$€£¥₹]?[\d][\d.,]*"
SEAT = re.compile(
    rf"^Seat (?P<seat>\d+): (?P<name>.+) \((?P<chips>{AMT}) in chips(?:, (?P<bounty>{AMT}) bounty)?\)(?P<tail>.*)$"
)
SEAT_OUT = (" is sitting out", " out of hand", " sitting out")
BOARD = re.compile(
    r"^\*\*\* (?:(?P<run>FIRST|SECOND|THIRD) )?(?P<street>FLOP|TURN|RIVER) \*\*\*\s*(?:\[[^\]]*\]\s*)*?\[(?P<cards>[^\]]*)\]\s*$"
)
MARKERS = re.compile(
    r"^\*\*\* (?:HOLE CARDS|PRE-FLOP|DEALING HANDS|(?:(?:FIRST|SECOND|THIRD) )?SHOW ?DOWN) \*\*\*\s*$"
)
SUMMARY = "*** SUMMARY ***"
DEALT = re.compile(r"^Dealt to (?P<name>.+?)(?: \[(?P<cards>[^\]]*)\])?\s*$")
UNCALLED = re.compile(rf"^Uncalled bet \((?P<amt>{AMT})\) returned to (?P<name>.+?)\s*$")
COLLECTED = re.compile(rf"^(?P<name>.+?) collected (?P<amt>{AMT}) from (?:the )?(?:side |main )?pot(?:[- ]\d+)?\s*$")
CHAT = re.compile(r'^(?P<name>.+?) said, "(?P<text>.*)"\s*$')
BOUNTY = re.compile(
    rf"^(?P<winner>.+?) wins (?:the )?(?P<amt>{AMT}) (?:bounty )?for (?P<split>splitting the elimination of|eliminating) "
    rf"(?P<loser>.+?)(?: and (?:their|his|her) own bounty increases by (?P<inc>{AMT}) to (?P<to>{AMT}))?\s*$"
)
PLACE = re.compile(r"^(?P<name>.+?) finished the tournament(?: in (?P<place>\d+)(?:st|nd|rd|th) place)?")
WINS_TOURNAMENT = re.compile(r"^(?P<name>.+?) wins the tournament")
TOTAL = re.compile(rf"^Total pot (?P<pot>{AMT})")
HOUSE = re.compile(rf"\| (?P<what>Rake|Jackpot|Bingo|Fortune|Tax|Fee|Cash Out Fee) (?P<amt>{AMT})")
SUMMARY_CARDS = re.compile(r"^Seat \d+: (?P<name>.+?) (?:\([^)]*\) )*(?:showed|mucked) \[(?P<cards>[^\]]+)\]")

# "name: <verb ...>" lines: verb pattern -> what it is.
VERBS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^folds\b"), "fold"),
    (re.compile(r"^checks\b"), "check"),
    (re.compile(rf"^calls (?P<a>{AMT})"), "call"),
    (re.compile(rf"^bets (?P<a>{AMT})"), "bet"),
    (re.compile(rf"^raises (?P<a>{AMT}) to (?P<b>{AMT})"), "raise"),
    (re.compile(rf"^posts (?:the )?(?:small blind|sb) (?P<a>{AMT})"), "small_blind"),
    (re.compile(rf"^posts (?:the )?(?:big blind|bb) (?P<a>{AMT})"), "big_blind"),
    (re.compile(rf"^posts (?:the )?ante (?P<a>{AMT})"), "ante"),
    (re.compile(rf"^posts small & big blinds (?P<a>{AMT})"), "dead_and_big"),
    (re.compile(rf"^(?:posts )?(?:a )?straddle (?P<a>{AMT})"), "straddle"),
    (re.compile(rf"^posts button blind (?P<a>{AMT})"), "straddle"),
    (re.compile(rf"^posts (?:the )?bomb pot (?P<a>{AMT})"), "ante"),
    (re.compile(r"^shows \[(?P<cards>[^\]]*)\]"), "show"),
    (re.compile(r"^mucks \[(?P<cards>[^\]]*)\]"), "show"),
    (re.compile(r"^(?:mucks hand|doesn't show hand|does not show|shows hand|sits out|is sitting out|"
                r"is away|sitting out|has returned|timed out|is disconnected|is connected|"
                r"is all-in|stands pat)"), "info"),
    (re.compile(r"^(?:Chooses to EV Cashout|Pays Cashout Risk|Receives Cashout|Cashed out|cashed out|"
                r"[Bb]uys? (?:all-in )?insurance|[Rr]eceives (?:all-in )?insurance)"), "cashout"),
)

INFO = re.compile(
    r"(?: is sitting out| sits out| has timed out| is disconnected| is connected| has returned|"
    r" joins the table| leaves the table| will be allowed to play after the button|"
    r" was removed from the table| re-?buys and receives| takes the add-on| adds on and receives|"
    r" cashed out the hand| has been disconnected| is feeling| is all-in| was moved| has reconnected)"
    r"|^Hand was run (?:twice|two times|three times)|^Betting is capped|^The hand was run"
    r"|^Main pot |^Side pot|^Time has expired|^Tournament is over"
)
SUMMARY_OK = re.compile(
    r"^(?:Seat \d+: |Total pot |Board |(?:FIRST|SECOND|THIRD) [Bb]oard |Hand was run |\*\*\* (?:FIRST|SECOND|THIRD) BOARD)"
)

SEAT_LINE_NOTE = re.compile(
    r"^(?P<name>.+?) (?P<what>is sitting out|sits out|has timed out|is disconnected|has been disconnected|"
    r"is connected|has reconnected|has returned|joins the table|leaves the table|was removed from the table)"
)
"""A seat change written as its own line ("X leaves the table", "X has returned")."""
AT_SEAT = re.compile(r"at seat #(\d+)")
_SEAT_NOTES: tuple[tuple[str, str], ...] = (
    ("has timed out while disconnected", "disconnect"),
    ("timed out while disconnected", "disconnect"),
    ("is sitting out", "sit_out"),
    ("sits out", "sit_out"),
    ("sitting out", "sit_out"),
    ("is away", "sit_out"),
    # A player who times out is sat out by the client (the "is sitting out" that follows is no change).
    ("has timed out", "sit_out"),
    ("timed out", "sit_out"),
    ("has returned", "sit_in"),
    ("is disconnected", "disconnect"),
    ("has been disconnected", "disconnect"),
    ("is connected", "reconnect"),
    ("has reconnected", "reconnect"),
    ("joins the table", "join"),
    ("leaves the table", "leave"),
    ("was removed from the table", "sit_out_timeout_removal"),
)


def seat_note(text: str) -> str | None:
    """The seat action an informational line's words mean (`SeatActivity.action`), if any."""
    for words, action in _SEAT_NOTES:
        if text.startswith(words):
            return action
    return None
