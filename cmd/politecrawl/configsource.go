package main

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// sources says where each config key's value came from, so that an error
// names the place to fix it: a flag, a POLITECRAWL_* environment variable,
// or the config file. A mistake in a variable blamed on the file sent
// users looking through a file that was right.
type sources struct {
	path  string            // the config file; "" for none
	flags map[string]string // key -> flag name, for the flags that were set
	env   map[string]string // key -> variable, for the variables that reach it
}

// newSources finds, for every key with a default, the flag (from binds)
// that set it or else the non-empty environment variable viper reads for
// it (viper skips empty ones).
func newSources(path string, flags *pflag.FlagSet, binds map[string]string) sources {
	s := sources{path: path, flags: map[string]string{}, env: map[string]string{}}
	for key := range defaults {
		if flag, ok := binds[key]; ok && flagChanged(flags, flag) {
			s.flags[key] = flag
			continue
		}
		if name := envName(key); os.Getenv(name) != "" {
			s.env[key] = name
		}
	}
	return s
}

// testVariables are the POLITECRAWL_* variables the test suite and the
// benchmarks read (README's Development section): not config keys, and
// no mistake to warn of.
var testVariables = map[string]bool{"POLITECRAWL_BOUND_WORKERS": true, "POLITECRAWL_BOUND_HOSTS": true,
	"POLITECRAWL_BOUND_SERVE": true, "POLITECRAWL_QUEUED_N": true, "POLITECRAWL_QUEUED_STATS": true,
	"POLITECRAWL_QUEUE_FILL": true, "POLITECRAWL_RESTART_N": true, "POLITECRAWL_MEASURE_MB": true,
	"POLITECRAWL_MEASURE_DIR": true, "POLITECRAWL_SCREENSHOTS": true, "POLITECRAWL_TEST_AS_NOBODY": true}

// unknownVariables lists the POLITECRAWL_* environment variables set that
// reach no config key: viper reads only the names of keys it knows, so a
// misspelt one (POLITECRAWL_POLITNESS_DEFAULT_DELAY) changed nothing and
// said nothing, where the same misspelling in the file is refused.
func unknownVariables() []string {
	known := make(map[string]bool, len(defaults))
	for key := range defaults {
		known[envName(key)] = true
	}
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "POLITECRAWL_") && !known[name] && !testVariables[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// unknownVariableWarning is the one line said of each of them.
func unknownVariableWarning(name string) string {
	return fmt.Sprintf("environment variable %s matches no config key and is ignored (config.example.yaml lists every key; a variable is POLITECRAWL_ and the key in capitals with _ for .)", name)
}

// envName is the variable viper reads for key: POLITECRAWL_ and the key in
// upper case with '.' as '_'.
func envName(key string) string {
	return "POLITECRAWL_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// blame turns problems, each "key: message" (or a message that names no
// key), into one line that puts each under its source: "config FILE:" for
// the file's (first, together), "environment variable NAME:" or "flag
// --NAME:" for each of the others, without the key the name already says.
func (s sources) blame(problems []error) error {
	if len(problems) == 0 {
		return nil
	}
	var file, other []string
	for _, p := range problems {
		msg := p.Error()
		key, rest, _ := strings.Cut(msg, ": ")
		switch {
		case s.flags[key] != "":
			other = append(other, fmt.Sprintf("flag --%s: %s", s.flags[key], rest))
		case s.env[key] != "":
			other = append(other, fmt.Sprintf("environment variable %s: %s", s.env[key], rest))
		default:
			file = append(file, msg)
		}
	}
	if len(file) > 0 {
		name := s.path
		if name == "" {
			name = "(no file: defaults)"
		}
		other = append([]string{fmt.Sprintf("config %s: %s", name, strings.Join(file, "; "))}, other...)
	}
	return errors.New(strings.Join(other, "; "))
}

// envProblems checks the value of each variable that reaches a key
// against the key's type before the whole config is decoded, saying what
// is wrong with it as the file's checks do ("2 has no unit"), where the
// decoder would say only "time: missing unit in duration".
func (s sources) envProblems() []error {
	var errs []error
	for key, name := range s.env {
		if msg := badValue(keyTypes[key], os.Getenv(name)); msg != "" {
			errs = append(errs, fmt.Errorf("%s: %s", key, msg))
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// fileProblems checks the value of each key read from the file (or left
// at its default) against the key's type before the whole config is
// decoded, as envProblems does for the variables: `workers: eight` is
// "workers: "eight" is not a whole number", where the decoder said
// "'workers' cannot parse value as 'int': strconv.ParseInt: invalid
// syntax". A list or a section where one value belongs is said so too.
func (s sources) fileProblems(v *viper.Viper) []error {
	var errs []error
	for key, t := range keyTypes {
		if s.env[key] != "" || s.flags[key] != "" || t.Kind() == reflect.Interface {
			continue
		}
		if msg := badFileValue(t, v.Get(key)); msg != "" {
			errs = append(errs, fmt.Errorf("%s: %s", key, msg))
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// badFileValue says what is wrong with val, as YAML gave it, as a value
// of type t, or "". Numbers given for durations are durationsHaveUnits'.
func badFileValue(t reflect.Type, val any) string {
	shape := ""
	switch val.(type) {
	case string:
		// "" too: written in the file, it would decode to the zero
		// value (error_backoff: "" would turn the error backoff off,
		// latency_factor: "" the adaptive delay), so it is refused
		// like any other text where a number or a boolean belongs.
		if t.Kind() != reflect.Slice {
			return badValue(t, val.(string))
		}
	case []any:
		shape = "a list"
	case map[string]any:
		shape = "a section (key: value lines)"
	}
	switch {
	case shape == "":
		return ""
	case t.Kind() == reflect.Slice && shape == "a list":
		return ""
	case t.Kind() == reflect.Slice:
		return shape + " where a list belongs"
	}
	return fmt.Sprintf("%s where %s belongs", shape, typeName(t))
}

// typeName says what a value of type t is written as.
func typeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return "a duration (1s, 500ms, 2m)"
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		return "a whole number"
	case t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Bool:
		return "true or false"
	}
	return "a single value"
}

// badValue says what is wrong with v as a value of type t, or "".
func badValue(t reflect.Type, v string) string {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		if msg := noUnit(v); msg != "" {
			return msg
		}
		if _, err := time.ParseDuration(v); err != nil {
			return fmt.Sprintf("%q is not a duration; write it like 1s, 500ms or 2m (units: ms, s, m, h)", v)
		}
	case t == nil:
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		if _, err := strconv.ParseInt(v, 0, 64); err != nil {
			return fmt.Sprintf("%q is not a whole number", v)
		}
	case t.Kind() == reflect.Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Sprintf("%q is not true or false", v)
		}
	case t.Kind() == reflect.Float64:
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Sprintf("%q is not a number", v)
		}
	}
	return ""
}

// noUnit is the message for a duration written as a bare number other
// than 0 (which would be nanoseconds), or "".
func noUnit(v string) string {
	if _, err := strconv.ParseFloat(v, 64); err != nil || v == "0" {
		return ""
	}
	return fmt.Sprintf("%s has no unit; write it with one, e.g. %ss or %sms (units: ms, s, m, h)", v, v, v)
}

// keyTypes maps each config key to its field's type in Config.
var keyTypes = func() map[string]reflect.Type {
	types := map[string]reflect.Type{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			key := prefix + f.Tag.Get("mapstructure")
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, key+".")
				continue
			}
			types[key] = f.Type
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return types
}()
