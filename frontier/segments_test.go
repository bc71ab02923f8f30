package frontier

import (
	"strings"
	"testing"
)

func TestRepeatedSegments(t *testing.T) {
	long := "http://h/" + strings.Repeat("a/b/", 40) + "c"
	tests := []struct {
		url  string
		want int
	}{
		{"http://h", 0},
		{"http://h/", 0},
		{"http://h/a", 1},
		{"http://h/a/b/a/b/a", 3},
		{"http://h/a/b/a/b/a/", 3},
		{"http://h//a//a", 2},
		{"http://h/x/a/b/a/b/b", 3},
		{"http://h/a/b/c?x=/a/a/a", 1},
		{"http://h/loop/loop/loop/loop/", 4},
		{"https://h:8080/p/1", 1},
		{long, 40},
		{long + "/b", 41},
	}
	for i, tt := range tests {
		if got := repeatedSegments(tt.url); got != tt.want {
			t.Errorf("step %d: repeatedSegments(%q) = %d, want %d", i, tt.url, got, tt.want)
		}
	}
}

func BenchmarkRepeatedSegments(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		repeatedSegments("http://127.0.0.1:41234/p/123/section/item?q=1")
	}
}
