package config

import "vroom/agents"

// Model is the model client the settings describe, for a run and for
// vroom doctor alike: a model per role, the API they are spoken to with,
// a reasoning effort per role. hint says where the person fixes a refused
// key.
func (st Settings) Model(key, hint string) agents.ModelConfig {
	models := map[agents.Role]string{agents.RolePlanner: st.PlannerModel, agents.RoleExecutor: st.ExecutorModel}
	if st.VisionModel != "" {
		models[agents.RoleVision] = st.VisionModel
	}
	// Settings are validated before they get here; a bad name is auto.
	api, _ := agents.ParseAPI(st.ModelAPI)
	return agents.ModelConfig{
		BaseURL: st.BaseURL, APIKey: key, Models: models, KeyHint: hint, API: api,
		Efforts: map[agents.Role]string{agents.RolePlanner: st.PlannerEffort, agents.RoleExecutor: st.ExecutorEffort},
	}
}
