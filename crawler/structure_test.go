package crawler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStructureBudget holds issue 19's structural figures, so that the
// shape it set does not drift back one function at a time (recordPage had
// grown to 87 lines before this test): crawler.Crawler has at most 50
// methods, the crawler package's own files (without its subpackages) are
// at most 12% of the module's non-test code, and no non-test function is
// over 80 lines. Line counts are of whole files and declarations, as `wc
// -l` and an editor show them.
func TestStructureBudget(t *testing.T) {
	const (
		maxMethods  = 50
		maxShare    = 0.12
		maxFuncLine = 80
	)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found above the crawler package: %v", err)
	}
	fset := token.NewFileSet()
	var methods, total, own int
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Count(string(src), "\n")
		total += lines
		inCrawler := filepath.Dir(path) == filepath.Join(root, "crawler")
		if inCrawler {
			own += lines
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLine {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: %s is %d lines, more than %d", rel, fd.Name.Name, n, maxFuncLine)
			}
			if inCrawler && fd.Recv != nil && len(fd.Recv.List) == 1 && receiverIs(fd.Recv.List[0].Type, "Crawler") {
				methods++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if methods > maxMethods {
		t.Errorf("crawler.Crawler has %d methods, more than %d: a new verb belongs to the type that owns the state it changes", methods, maxMethods)
	}
	if share := float64(own) / float64(total); share > maxShare {
		t.Errorf("crawler/*.go is %d of %d non-test lines (%.1f%%), more than %.0f%%: new capabilities go in packages of their own", own, total, 100*share, 100*maxShare)
	}
	t.Logf("Crawler methods %d; crawler/*.go %d of %d lines (%.2f%%)", methods, own, total, 100*float64(own)/float64(total))
}

// receiverIs reports whether a method receiver's type is name or *name.
func receiverIs(e ast.Expr, name string) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
