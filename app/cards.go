package app

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"vroom/agents"
)

// cards are the confirmations and questions waiting for the person. The
// type owns its state and its lock; it is told how to reach the UI and
// holds no lock while it does.
type cards struct {
	opened func(Card)      // tells the UI a card waits
	closed func(id string) // tells the UI a card no longer waits

	mu   sync.Mutex
	seq  int
	open map[string]*pendingCard
}

type pendingCard struct {
	card   Card
	seq    int
	answer chan string
}

func newCards(opened func(Card), closed func(id string)) *cards {
	return &cards{opened: opened, closed: closed, open: map[string]*pendingCard{}}
}

// wait shows c and blocks until the person answers it or ctx ends (the
// agent was stopped, or the run ended).
func (cs *cards) wait(ctx context.Context, c Card) (string, error) {
	cs.mu.Lock()
	cs.seq++
	c.ID = "card" + strconv.Itoa(cs.seq)
	p := &pendingCard{card: c, seq: cs.seq, answer: make(chan string, 1)}
	cs.open[c.ID] = p
	cs.mu.Unlock()
	cs.opened(c)
	defer func() {
		if cs.take(c.ID) != nil {
			cs.closed(c.ID)
		}
	}()
	select {
	case ans := <-p.answer:
		return ans, nil
	case <-ctx.Done():
		return "", fmt.Errorf("%s: %w", c.Kind, ctx.Err())
	}
}

// take removes the card id from those waiting; nil when it was not.
func (cs *cards) take(id string) *pendingCard {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p, ok := cs.open[id]
	if !ok {
		return nil
	}
	delete(cs.open, id)
	return p
}

// answer gives the waiting card id its answer.
func (cs *cards) answer(id, ans string) error {
	p := cs.take(id)
	if p == nil {
		return ErrNoCard
	}
	p.answer <- ans // buffered for exactly this one answer
	cs.closed(id)
	return nil
}

// closeRun drops the cards of a run that ended.
func (cs *cards) closeRun(runID string) {
	cs.mu.Lock()
	var ids []string
	for id, p := range cs.open {
		if p.card.RunID == runID {
			ids = append(ids, id)
			delete(cs.open, id)
		}
	}
	cs.mu.Unlock()
	for _, id := range ids {
		cs.closed(id)
	}
}

// list returns the waiting cards, oldest first.
func (cs *cards) list() []Card {
	cs.mu.Lock()
	ps := make([]*pendingCard, 0, len(cs.open))
	for _, p := range cs.open {
		ps = append(ps, p)
	}
	cs.mu.Unlock()
	sort.Slice(ps, func(i, j int) bool { return ps[i].seq < ps[j].seq })
	out := make([]Card, len(ps))
	for i, p := range ps {
		out[i] = p.card
	}
	return out
}

// confirm shows a confirmation card and waits for the person.
func (a *App) confirm(ctx context.Context, runID string, c agents.Confirmation) (agents.Decision, error) {
	ans, err := a.cards.wait(ctx, Card{Kind: CardConfirm, RunID: runID, Agent: c.Agent, Action: c.Action, Target: c.Target, Reason: c.Reason, URL: c.URL})
	if err != nil {
		return agents.Deny, err
	}
	switch ConfirmAnswer(ans) {
	case AnswerOnce:
		return agents.AllowOnce, nil
	case AnswerRun:
		return agents.AllowForRun, nil
	}
	return agents.Deny, nil
}

// ask shows a question card and waits for the person's choice.
func (a *App) ask(ctx context.Context, runID string, q agents.Question) (string, error) {
	return a.cards.wait(ctx, Card{Kind: CardAsk, RunID: runID, Agent: q.Agent, Question: q.Question, Options: q.Options})
}

// Cards returns the cards waiting for the person, oldest first.
func (a *App) Cards() []Card { return a.cards.list() }

// AnswerConfirm answers the confirmation card id: AnswerDeny, AnswerOnce
// (allow this action) or AnswerRun (allow it for the rest of the run).
func (a *App) AnswerConfirm(id string, decision ConfirmAnswer) error {
	switch decision {
	case AnswerDeny, AnswerOnce, AnswerRun:
	default:
		return fmt.Errorf("answer %s: %q is not deny, once or run", id, decision)
	}
	if err := a.cards.answer(id, string(decision)); err != nil {
		return fmt.Errorf("answer %s: %w", id, err)
	}
	return nil
}

// AnswerAsk answers the question card id with one of its options.
func (a *App) AnswerAsk(id, option string) error {
	if strings.TrimSpace(option) == "" {
		return fmt.Errorf("answer %s: the answer is empty", id)
	}
	if err := a.cards.answer(id, option); err != nil {
		return fmt.Errorf("answer %s: %w", id, err)
	}
	return nil
}
