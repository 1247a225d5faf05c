package config

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// LocalServer is an OpenAI-compatible server found on this machine.
type LocalServer struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"base_url"`
	Models  []string `json:"models"`
}

// localCandidates are the usual ports of local model servers.
func localCandidates() []LocalServer {
	return []LocalServer{
		{Name: "Ollama", BaseURL: "http://127.0.0.1:11434/v1"},
		{Name: "llama.cpp", BaseURL: "http://127.0.0.1:8080/v1"},
	}
}

// localProbe bounds looking for a local server at start-up, which must
// not wait on a port nothing answers.
const localProbe = 400 * time.Millisecond

// DetectLocal looks for Ollama and llama.cpp at their usual ports.
func DetectLocal(ctx context.Context) (LocalServer, bool) {
	return DetectLocalServer(ctx, localCandidates(), localProbe)
}

// DetectLocalServer asks each candidate for its model list and returns the
// first that answers like an OpenAI-compatible server. It gives each probe
// timeout, and probes in parallel so a start-up never waits for more than one.
func DetectLocalServer(ctx context.Context, candidates []LocalServer, timeout time.Duration) (LocalServer, bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	found := make([]*LocalServer, len(candidates))
	var wg sync.WaitGroup
	for i, c := range candidates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			models, err := listModels(ctx, c.BaseURL)
			if err == nil {
				c.Models = models
				found[i] = &c
			}
		}()
	}
	wg.Wait()
	for _, f := range found {
		if f != nil {
			return *f, true
		}
	}
	return LocalServer{}, false
}

func listModels(ctx context.Context, baseURL string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/models", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list models: %s", resp.Status)
	}
	var body struct {
		Object string `json:"object"`
		Data   []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	if body.Object != "list" {
		return nil, fmt.Errorf("list models: not an OpenAI-compatible answer")
	}
	models := make([]string, 0, len(body.Data))
	for _, m := range body.Data {
		models = append(models, m.ID)
	}
	return models, nil
}
