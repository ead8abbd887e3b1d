package layers

import "testing"

func TestFamilyOfRequestID(t *testing.T) {
	for id, want := range map[string]string{
		"req_5f0c2a8e9b1d4c7fa3e6b8d0c1f2a3b4": "openai",
		"req_011CSHoEeqs5C35K2UUqR7Fy":         "anthropic",
		"req_5F0C2A8E9B1D4C7FA3E6B8D0C1F2A3B4": "", // OpenAI writes lower-case hex
		"req_5f0c2a8e9b1d4c7fa3e6b8d0c1f2a3b":  "", // 31 digits
		"req_011Cshort":                        "",
		"req-0059":                             "",
		"req_011C!!!!!!!!!!!!!!!!!!!!":         "",
		"9b2c1d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e": "", // Azure's UUID: either family
		"":                                     "",
	} {
		if got := FamilyOfRequestID(id); got != want {
			t.Errorf("FamilyOfRequestID(%q) = %q, want %q", id, got, want)
		}
	}
}
