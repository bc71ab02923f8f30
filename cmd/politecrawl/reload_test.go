package main

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestReloadKeysInREADME: README's "Change settings live" names exactly
// the keys a SIGHUP reload applies at once (each key of the config is
// changed alone, and it is live when need_restart does not name it), and
// each key it says needs a restart does. It said every scope rule
// applied at once, while scope.max_depth came back in need_restart.
func TestReloadKeysInREADME(t *testing.T) {
	base, err := loadConfig("../../config.example.yaml", pflag.NewFlagSet("x", pflag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	var live, restart []string
	eachKey("", reflect.ValueOf(base).Elem(), func(key string, _ reflect.Value) {
		next := *base
		eachKey("", reflect.ValueOf(&next).Elem(), func(k string, f reflect.Value) {
			if k == key {
				change(t, k, f)
			}
		})
		switch got := restartNeeded(appliedLive(base, &next), &next); {
		case len(got) == 0:
			live = append(live, key)
		case slices.Equal(got, []string{key}):
			restart = append(restart, key)
		default:
			t.Errorf("%s changed alone: need_restart %q", key, got)
		}
	})
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	para := string(readme)
	i := strings.Index(para, "- **Change settings live**")
	if i < 0 {
		t.Fatal(`README has no "Change settings live" paragraph`)
	}
	para = para[i:]
	para = para[:strings.Index(para, "\n\n")]
	atOnce, rest, ok := strings.Cut(para, "Every other key needs a restart")
	if !ok {
		t.Fatalf("README's reload paragraph does not say which keys need a restart:\n%s", para)
	}
	keys := func(s string) []string {
		var out []string
		for _, m := range regexp.MustCompile("`([a-z_.]+):?`").FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	slices.Sort(live)
	if said := keys(atOnce[strings.Index(atOnce, "apply at once"):]); !slices.Equal(said, live) {
		t.Errorf("README says these keys apply at once:\n  %q\nthe reload applies:\n  %q", said, live)
	}
	rest, _, _ = strings.Cut(rest, "among them")
	for _, k := range keys(rest) {
		if !slices.Contains(restart, k) {
			t.Errorf("README says %s needs a restart; the reload applies it (or it is no key)", k)
		}
	}
}

// eachKey calls fn with each config key under v (a Config or one of its
// sections) and its field, named as the config file names them.
func eachKey(prefix string, v reflect.Value, fn func(key string, f reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		name := strings.Split(sf.Tag.Get("mapstructure"), ",")[0]
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		if prefix != "" {
			name = prefix + "." + name
		}
		if sf.Type.Kind() == reflect.Struct && sf.Type != reflect.TypeFor[time.Time]() {
			eachKey(name, v.Field(i), fn)
			continue
		}
		fn(name, v.Field(i))
	}
}

// change gives f, the field of key, another value (a new slice: the copy
// of the config shares the old one's array).
func change(t *testing.T, key string, f reflect.Value) {
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Int, reflect.Int64:
		f.SetInt(f.Int() + 1)
	case reflect.Float64:
		f.SetFloat(f.Float() + 1)
	case reflect.String:
		f.SetString(f.String() + "x")
	case reflect.Slice:
		s := reflect.AppendSlice(reflect.MakeSlice(f.Type(), 0, f.Len()+1), f)
		f.Set(reflect.Append(s, reflect.Zero(f.Type().Elem())))
	case reflect.Interface:
		f.Set(reflect.ValueOf(map[string]any{"changed.example": map[string]any{}}))
	default:
		t.Fatalf("%s: a %s, which the test cannot change", key, f.Type())
	}
}
