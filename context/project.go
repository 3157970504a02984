package context

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillroute/skillroute/store"
	"gopkg.in/yaml.v3"
)

// Project type names, as DetectProject reports them, with what detects
// each. Which skills a type favours is data (ProjectFavours).
const (
	// next.config.js/.mjs/.ts/.cjs, or "next" in package.json.
	TypeNextJS = "nextjs"
	// nuxt.config.*, vue.config.js, or "vue"/"nuxt" in package.json.
	TypeVue = "vue"
	// "react-native" or "expo" in package.json.
	TypeReactNative = "react-native"
	// package.json with a frontend framework or bundler (react, svelte,
	// vite, @angular/core, …), or a tsconfig.json in a project that is
	// not a Node backend. Not reported when a more specific frontend type
	// (nextjs, vue, react-native, miniprogram) is.
	TypeNodeFrontend = "node-frontend"
	// tsconfig.json: the TypeScript part of node-frontend, kept as a type
	// of its own so that it also holds beside nextjs, vue or a backend.
	TypeTypeScript = "typescript"
	// package.json with express, koa, @nestjs/core, fastify, hono, ….
	TypeNodeBackend = "node-backend"
	// go.mod or go.work.
	TypeGo = "go"
	// pyproject.toml, requirements.txt, setup.py, setup.cfg, Pipfile,
	// manage.py (Django).
	TypePython = "python"
	// pom.xml, build.gradle(.kts), settings.gradle(.kts). Not reported
	// when android is: an Android app's Gradle files are not a backend.
	TypeJavaKotlin = "java-kotlin"
	// src/main/AndroidManifest.xml or app/src/main/AndroidManifest.xml
	// beside Gradle files, or the Android Gradle plugin named in
	// build.gradle(.kts) (com.android.application, com.android.tools.build).
	TypeAndroid = "android"
	// Cargo.toml.
	TypeRust = "rust"
	// pubspec.yaml.
	TypeFlutter = "flutter"
	// Podfile, Package.swift, *.xcodeproj, *.xcworkspace.
	TypeIOS = "ios"
	// project.config.json (WeChat), mini.project.json (Alipay), app.json
	// together with a pages/ folder, or Taro / uni-app in package.json.
	TypeMiniprogram = "miniprogram"
	// Chart.yaml, kustomization.yaml, helmfile.yaml, skaffold.yaml, or a
	// k8s/, kubernetes/, manifests/ or charts/ folder.
	TypeInfra = "infra"
	// Dockerfile (Dockerfile.*, *.dockerfile, Containerfile),
	// docker-compose.yml/yaml, compose.yml/yaml.
	TypeDocker = "docker"
	// .github/workflows/, .gitlab-ci.yml, Jenkinsfile,
	// azure-pipelines.yml.
	TypeCI = "ci"
	// *.tf, terragrunt.hcl.
	TypeTerraform = "terraform"
	// dbt_project.yml, airflow.cfg, an Airflow dags/ folder, *.ipynb.
	TypeData = "data"
	// playwright.config.*, cypress.config.*, cypress.json, or
	// @playwright/test / cypress in package.json.
	TypeWebTesting = "web-testing"
)

// projectTypes is every type DetectProject knows, in the order it
// reports them.
var projectTypes = [...]string{
	TypeNextJS, TypeVue, TypeReactNative, TypeNodeFrontend, TypeTypeScript, TypeNodeBackend,
	TypeGo, TypePython, TypeJavaKotlin, TypeAndroid, TypeRust, TypeFlutter, TypeIOS,
	TypeMiniprogram, TypeInfra, TypeDocker, TypeCI, TypeTerraform, TypeData, TypeWebTesting,
}

// ProjectTypeNames returns every type DetectProject knows, in the order
// it reports them.
func ProjectTypeNames() []string {
	return slices.Clone(projectTypes[:])
}

// Detection bounds. DetectProject runs on every prompt, so its cost must
// not depend on the size of the tree.
//
// MaxLevels is how many folders are inspected, the start folder included:
// deep enough to reach the repository root from src/main/java/… or
// packages/web/src/components, and it stops a walk in a folder that is
// in no repository from wandering to the file system's root.
//
// MaxEntries is how many entries of one folder are listed: a project root
// has tens; a folder with thousands (a download or a media folder) is no
// project root, and listing it in full would cost more than the answer is
// worth. Beyond MaxEntries, entries are ignored in the file system's
// order.
//
// MaxReadBytes is how much of package.json or build.gradle is read; real
// ones are a few kilobytes. A longer file counts as empty: cut, it would
// not parse, and a generated file that size is no hand-kept manifest.
//
// Per folder that makes one listing, at most three stats (.github/workflows
// and two AndroidManifest.xml places) and at most three small reads
// (package.json, build.gradle, build.gradle.kts), so a walk costs at most
// MaxLevels × 7 file-system calls. Measured (BenchmarkDetectProject, on
// the 2-core development machine): 48–56 µs, 14 kB and 218 allocations
// for a walk of four folders from src/app/page of a Next.js repository
// to its root, the 30-dependency package.json parse included; a
// negligible share of a hook process's start-up.
const (
	MaxLevels    = 8
	MaxEntries   = 1000
	MaxReadBytes = 256 << 10
)

// Dependencies in package.json that identify a type.
var (
	depNextJS       = []string{"next"}
	depVue          = []string{"vue", "nuxt", "nuxt3"}
	depReactNative  = []string{"react-native", "expo"}
	depMiniprogram  = []string{"@tarojs/taro", "@dcloudio/uni-app"}
	depNodeBackend  = []string{"express", "koa", "@nestjs/core", "fastify", "@hapi/hapi", "hapi", "egg", "hono", "@adonisjs/core", "restify", "@apollo/server", "apollo-server"}
	depNodeFrontend = []string{"react", "react-dom", "preact", "svelte", "@sveltejs/kit", "vite", "@angular/core", "solid-js", "astro", "gatsby", "@remix-run/react", "lit", "ember-source", "parcel"}
	depWebTesting   = []string{"@playwright/test", "playwright", "cypress"}
)

// typeSet is a set of projectTypes positions (fewer than 64; a test
// checks).
type typeSet uint64

func (s *typeSet) add(name string) {
	if i := typeIndex(name); i >= 0 {
		*s |= 1 << uint(i)
	}
}

func (s typeSet) has(name string) bool {
	i := typeIndex(name)
	return i >= 0 && s&(1<<uint(i)) != 0
}

func (s *typeSet) remove(name string) {
	if i := typeIndex(name); i >= 0 {
		*s &^= 1 << uint(i)
	}
}

func typeIndex(name string) int {
	return slices.Index(projectTypes[:], name)
}

// detection accumulates evidence over the folders of one walk.
type detection struct {
	types typeSet
	// tsconfig and frontendDeps are kept apart because whether a
	// tsconfig.json means node-frontend depends on the whole walk.
	tsconfig, frontendDeps bool
}

// DetectProject returns the types (in ProjectTypeNames order) of the
// project dir belongs to. It looks at dir and its parents, up to and
// including the repository root (the first folder holding .git), at most
// MaxLevels folders; it stops before home, the user's home folder (whose
// stray files are no project's), unless dir is home itself, and never
// looks above home (a prompt typed in home went on to /tmp's and /'s
// files). An empty home
// sets no such limit. Evidence from all inspected folders is combined, so
// a monorepo package also shows the root's types. Unreadable folders and
// malformed files are no evidence; the result is nil when nothing is
// detected.
func DetectProject(dir, home string) []string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	if home != "" {
		if h, err := filepath.Abs(home); err == nil {
			home = h
		}
	}
	var d detection
	for level := 0; level < MaxLevels; level++ {
		if level > 0 && abs == home {
			break
		}
		if d.scan(abs) || abs == home {
			break // the repository root, or home itself: nothing above it is the project's
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			break
		}
		abs = parent
	}
	return d.result()
}

// scan adds the evidence of one folder and reports whether it is a
// repository root.
func (d *detection) scan(dir string) (root bool) {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	entries, _ := f.ReadDir(MaxEntries)
	f.Close()

	var pkg, gradle, appDir, appJSON, pagesDir, github bool
	for _, e := range entries {
		name := e.Name()
		// Symbolic links are taken for folders too when their name says
		// so: following them would cost a stat each.
		if e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			switch name {
			case "pages":
				pagesDir = true
			case "app":
				appDir = true
			case ".github":
				github = true
			case "k8s", "kubernetes", "manifests", "charts":
				d.types.add(TypeInfra)
			case "dags":
				d.types.add(TypeData)
			}
			if strings.HasSuffix(name, ".xcodeproj") || strings.HasSuffix(name, ".xcworkspace") {
				d.types.add(TypeIOS)
			}
			if e.IsDir() {
				if name == ".git" {
					root = true
				}
				continue
			}
		}
		switch name {
		case ".git": // a worktree's or submodule's .git file
			root = true
		case "package.json":
			pkg = true
		case "tsconfig.json":
			d.tsconfig = true
			d.types.add(TypeTypeScript)
		case "vue.config.js":
			d.types.add(TypeVue)
		case "go.mod", "go.work":
			d.types.add(TypeGo)
		case "pyproject.toml", "requirements.txt", "setup.py", "setup.cfg", "Pipfile", "manage.py":
			d.types.add(TypePython)
		case "pom.xml":
			d.types.add(TypeJavaKotlin)
		case "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts":
			gradle = true
			d.types.add(TypeJavaKotlin)
		case "Cargo.toml":
			d.types.add(TypeRust)
		case "pubspec.yaml":
			d.types.add(TypeFlutter)
		case "Podfile", "Package.swift":
			d.types.add(TypeIOS)
		case "project.config.json", "mini.project.json":
			d.types.add(TypeMiniprogram)
		case "app.json":
			appJSON = true
		case "Chart.yaml", "kustomization.yaml", "kustomization.yml", "Kustomization", "helmfile.yaml", "helmfile.yml", "skaffold.yaml":
			d.types.add(TypeInfra)
		case "Dockerfile", "Containerfile", "docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml":
			d.types.add(TypeDocker)
		case ".gitlab-ci.yml", "Jenkinsfile", "azure-pipelines.yml":
			d.types.add(TypeCI)
		case "terragrunt.hcl":
			d.types.add(TypeTerraform)
		case "dbt_project.yml", "airflow.cfg":
			d.types.add(TypeData)
		case "cypress.json":
			d.types.add(TypeWebTesting)
		default:
			switch {
			case strings.HasPrefix(name, "next.config."):
				d.types.add(TypeNextJS)
			case strings.HasPrefix(name, "nuxt.config."):
				d.types.add(TypeVue)
			case strings.HasPrefix(name, "playwright.config."), strings.HasPrefix(name, "cypress.config."):
				d.types.add(TypeWebTesting)
			case strings.HasPrefix(name, "Dockerfile."), strings.HasSuffix(name, ".dockerfile"):
				d.types.add(TypeDocker)
			case strings.HasSuffix(name, ".tf"):
				d.types.add(TypeTerraform)
			case strings.HasSuffix(name, ".ipynb"):
				d.types.add(TypeData)
			}
		}
	}

	if pkg {
		d.packageJSON(filepath.Join(dir, "package.json"))
	}
	if appJSON && pagesDir {
		d.types.add(TypeMiniprogram)
	}
	if github && isDir(filepath.Join(dir, ".github", "workflows")) {
		d.types.add(TypeCI)
	}
	if gradle && isAndroid(dir, appDir) {
		d.types.add(TypeAndroid)
	}
	return root
}

// packageJSON adds the types named by a package.json's dependencies and
// devDependencies. A missing, oversized or malformed file adds nothing.
func (d *detection) packageJSON(path string) {
	data := readHead(path)
	var pkg struct {
		Dependencies    map[string]json.RawMessage `json:"dependencies"`
		DevDependencies map[string]json.RawMessage `json:"devDependencies"`
	}
	if len(data) == 0 || json.Unmarshal(data, &pkg) != nil {
		return
	}
	has := func(names []string) bool {
		for _, n := range names {
			if _, ok := pkg.Dependencies[n]; ok {
				return true
			}
			if _, ok := pkg.DevDependencies[n]; ok {
				return true
			}
		}
		return false
	}
	mark := func(names []string, typ string) {
		if has(names) {
			d.types.add(typ)
		}
	}
	mark(depNextJS, TypeNextJS)
	mark(depVue, TypeVue)
	mark(depReactNative, TypeReactNative)
	mark(depMiniprogram, TypeMiniprogram)
	mark(depNodeBackend, TypeNodeBackend)
	mark(depWebTesting, TypeWebTesting)
	if has(depNodeFrontend) {
		d.frontendDeps = true
	}
}

// androidPlugin are the strings that name the Android Gradle plugin in a
// build script: the plugin id (plugins block, or the root script's
// "apply false") and the old buildscript classpath.
var androidPlugin = [][]byte{[]byte("com.android.application"), []byte("com.android.tools.build")}

// isAndroid tells whether a folder holding Gradle files is an Android
// project: a manifest where the Android plugin puts it (two stats), else
// the plugin named in build.gradle or build.gradle.kts (two small reads).
func isAndroid(dir string, appDir bool) bool {
	if isFile(filepath.Join(dir, "src", "main", "AndroidManifest.xml")) {
		return true
	}
	if appDir && isFile(filepath.Join(dir, "app", "src", "main", "AndroidManifest.xml")) {
		return true
	}
	for _, name := range []string{"build.gradle", "build.gradle.kts"} {
		data := readHead(filepath.Join(dir, name))
		for _, p := range androidPlugin {
			if bytes.Contains(data, p) {
				return true
			}
		}
	}
	return false
}

// result applies the precedence between types and returns their names.
func (d *detection) result() []string {
	s := d.types
	if d.frontendDeps || (d.tsconfig && !s.has(TypeNodeBackend)) {
		s.add(TypeNodeFrontend)
	}
	for _, specific := range []string{TypeNextJS, TypeVue, TypeReactNative, TypeMiniprogram} {
		if s.has(specific) {
			s.remove(TypeNodeFrontend)
		}
	}
	if s.has(TypeAndroid) {
		s.remove(TypeJavaKotlin)
	}
	if s == 0 {
		return nil
	}
	var out []string
	for _, t := range projectTypes {
		if s.has(t) {
			out = append(out, t)
		}
	}
	return out
}

// readHead returns the first MaxReadBytes of a file, or nil if it cannot
// be read or is longer than that (a cut file would mislead). Only a
// regular file is read: a marker that is a FIFO (it would block the hook
// until its deadline on every prompt in that project) or a device such as
// /dev/zero is no marker. The open does not block, so a FIFO cannot stall
// it before the check.
func readHead(path string) []byte {
	data, err := store.ReadRegular(path, MaxReadBytes)
	if err != nil {
		return nil
	}
	return data
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// ProjectFavours maps each project type to the skills it favours, each
// with a weight in (0, 1]. The shipped table is rules/projects.yaml, read
// with ParseProjectFavours; a type absent from it favours nothing.
type ProjectFavours map[string]map[string]float64

// ParseProjectFavours reads a project-types file (see rules/projects.yaml):
//
//	types:
//	  go:
//	    golang-pro: 1.0
//	    backend-builder: 0.4
//
// Type names must be ones DetectProject reports, each given once, with
// at least one skill; weights must lie in (0, 1]. Errors name the file
// and line.
func ParseProjectFavours(name string, data []byte) (ProjectFavours, error) {
	var doc struct {
		Types yaml.Node `yaml:"types"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	types := &doc.Types
	if types.Kind != yaml.MappingNode {
		if types.Kind == 0 {
			return nil, fmt.Errorf("%s: no types: the file maps each project type to the skills it favours", name)
		}
		return nil, fmt.Errorf("%s:%d: types must map each project type to the skills it favours", name, types.Line)
	}
	out := ProjectFavours{}
	for i := 0; i+1 < len(types.Content); i += 2 {
		key, val := types.Content[i], types.Content[i+1]
		typ := key.Value
		if typeIndex(typ) < 0 {
			return nil, fmt.Errorf("%s:%d: unknown project type %q (DetectProject reports %s)", name, key.Line, typ, strings.Join(projectTypes[:], ", "))
		}
		if _, dup := out[typ]; dup {
			return nil, fmt.Errorf("%s:%d: project type %s is given twice", name, key.Line, typ)
		}
		if val.Kind != yaml.MappingNode || len(val.Content) == 0 {
			return nil, fmt.Errorf("%s:%d: project type %s: must map the skills it favours to their weights", name, val.Line, typ)
		}
		favours := make(map[string]float64, len(val.Content)/2)
		for j := 0; j+1 < len(val.Content); j += 2 {
			sk, w := val.Content[j], val.Content[j+1]
			skill := strings.TrimSpace(sk.Value)
			if skill == "" {
				return nil, fmt.Errorf("%s:%d: project type %s: a skill without a name", name, sk.Line, typ)
			}
			if _, dup := favours[skill]; dup {
				return nil, fmt.Errorf("%s:%d: project type %s: skill %s is given twice", name, sk.Line, typ, skill)
			}
			var weight float64
			if err := w.Decode(&weight); err != nil {
				return nil, fmt.Errorf("%s:%d: project type %s: skill %s: weight %q is not a number", name, w.Line, typ, skill, w.Value)
			}
			if !(weight > 0 && weight <= 1) {
				return nil, fmt.Errorf("%s:%d: project type %s: skill %s: weight %v outside (0, 1]", name, w.Line, typ, skill, weight)
			}
			favours[skill] = weight
		}
		out[typ] = favours
	}
	return out, nil
}

// ProjectScores returns, for every skill that one of the named types
// favours, the largest weight any of them gives it, in [0, 1]. The max,
// not the sum: a Go service with a Dockerfile does not make devops-expert
// twice as likely. Types absent from favours are ignored.
func ProjectScores(types []string, favours ProjectFavours) map[string]float64 {
	out := map[string]float64{}
	for _, name := range types {
		for skill, w := range favours[name] {
			w = math.Max(0, math.Min(1, w))
			if w > out[skill] {
				out[skill] = w
			}
		}
	}
	return out
}
