package app

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Spoken answers to a confirmation card, after normalising (lower case,
// no punctuation, apostrophes dropped, filler words removed). A card is
// answered only when the whole utterance is one of these: "no, take the
// most recent repo" is a correction, not a denial. Allowing an
// irreversible action takes a deliberate word: a mere "okay" is not one.
var (
	sayOnce = []string{
		"allow", "allow once", "allow it", "allow it once", "allow this once", "allow that", "allow that once",
		"once", "yes", "yes allow", "yes allow it", "yes allow once", "yes once", "go ahead", "yes go ahead",
		"do it", "yes do it", "approve",
	}
	sayRun = []string{
		"allow for this run", "allow for the run", "allow for the whole run", "allow it for this run",
		"allow it for the run", "for this run", "for the run", "always", "always allow", "allow always",
		"yes always", "allow all", "allow everything",
	}
	sayDeny = []string{
		"deny", "deny it", "deny that", "no", "no deny", "nope", "dont", "dont do it", "dont do that", "no dont",
		"no dont do it", "do not", "do not do it", "do not do that", "no do not", "refuse", "cancel", "stop",
		"reject",
	}
)

// fillers carry no answer: "deny, please" is "deny".
var fillers = map[string]bool{"please": true, "um": true, "uh": true, "er": true, "erm": true, "hmm": true,
	"thanks": true, "thank": true, "you": true}

// choiceWords frame a choice without naming it: "I'll take the second
// one", "let's go with Paris".
var choiceWords = map[string]bool{"the": true, "a": true, "an": true, "one": true, "option": true, "i": true,
	"ill": true, "id": true, "im": true, "we": true, "lets": true, "let": true, "us": true, "take": true,
	"choose": true, "pick": true, "select": true, "go": true, "with": true, "use": true, "want": true,
	"like": true, "would": true, "prefer": true, "answer": true, "is": true, "its": true, "it": true,
	"that": true, "for": true, "of": true, "to": true, "and": true, "yes": true, "please": true}

var ordinals = map[string]int{"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5,
	"1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "1st": 0, "2nd": 1, "3rd": 2, "4th": 3, "5th": 4, "6th": 5}

// words normalises speech or an option for matching: lower case, letters
// and digits only, apostrophes dropped ("don't" is "dont").
func words(s string) []string {
	s = strings.NewReplacer("'", "", "’", "").Replace(strings.ToLower(s))
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// voiceAnswer returns the answer a spoken utterance gives card c: for a
// confirmation "once", "run" or "deny"; for a question the chosen option's
// own text. ok is false unless the match is clear, and the utterance is
// then a correction like any other.
func voiceAnswer(c Card, said string) (answer string, ok bool) {
	var w []string
	for _, x := range words(said) {
		if !fillers[x] {
			w = append(w, x)
		}
	}
	if len(w) == 0 {
		return "", false
	}
	switch c.Kind {
	case CardConfirm:
		p := strings.Join(w, " ")
		switch {
		case slices.Contains(sayRun, p):
			return string(AnswerRun), true
		case slices.Contains(sayOnce, p):
			return string(AnswerOnce), true
		case slices.Contains(sayDeny, p):
			return string(AnswerDeny), true
		}
		return "", false
	case CardAsk:
		return matchOption(c.Options, w)
	}
	return "", false
}

// matchOption picks the one option the words name: the whole option, its
// distinguishing words, or its position ("the second one"). Most of what
// was said must belong to that option, so an instruction that merely
// mentions one is not taken as a choice.
func matchOption(options []string, said []string) (string, bool) {
	if len(options) == 0 {
		return "", false
	}
	joined := strings.Join(said, " ")
	for _, o := range options {
		if strings.Join(words(o), " ") == joined {
			return o, true
		}
	}
	// A word every option has ("repo" in "the newest repo" and "the
	// oldest repo") does not tell them apart.
	sets := make([]map[string]bool, len(options))
	count := map[string]int{}
	for i, o := range options {
		sets[i] = map[string]bool{}
		for _, x := range words(o) {
			if !sets[i][x] {
				sets[i][x] = true
				count[x]++
			}
		}
	}
	var content []string // what was said, beyond framing
	for _, x := range said {
		if !choiceWords[x] {
			content = append(content, x)
		}
	}
	best, bestHits, tie := -1, 0, false
	for i := range options {
		hits := 0
		for x := range sets[i] {
			if count[x] < len(options) && !choiceWords[x] && slices.Contains(content, x) {
				hits++
			}
		}
		switch {
		case hits > bestHits:
			best, bestHits, tie = i, hits, false
		case hits == bestHits && hits > 0:
			tie = true
		}
	}
	if best >= 0 && !tie {
		in := 0
		for _, x := range content {
			if sets[best][x] {
				in++
			}
		}
		if 2*in >= len(content) {
			return options[best], true
		}
		return "", false
	}
	if best < 0 && len(content) == 1 {
		if i, ok := ordinals[content[0]]; ok && i < len(options) {
			return options[i], true
		}
		if content[0] == "last" {
			return options[len(options)-1], true
		}
	}
	return "", false
}

// answerByVoice answers the oldest of run r's waiting cards that said
// clearly answers, and shows the answer in the room as the person's. It
// reports whether a card took it; if none did, said is a correction.
func (a *App) answerByVoice(r *activeRun, said string) bool {
	for _, c := range a.Cards() {
		if c.RunID != r.id {
			continue
		}
		ans, ok := voiceAnswer(c, said)
		if !ok {
			continue
		}
		var err error
		if c.Kind == CardConfirm {
			err = a.AnswerConfirm(c.ID, ConfirmAnswer(ans))
		} else {
			err = a.AnswerAsk(c.ID, ans)
		}
		if err != nil {
			// Answered by a click meanwhile: try the next card.
			continue
		}
		r.run.Room().UserAnswers(fmt.Sprintf("%s (answering %s)", strings.TrimSpace(said), c.Agent))
		a.log.Info("card answered by voice", "card", c.ID, "kind", c.Kind, "agent", c.Agent, "answer", ans)
		return true
	}
	return false
}
