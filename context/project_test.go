package context_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
)

// tree builds files under a new temporary folder and returns it. A path
// ending in "/" is a folder; any other is a file with the given content.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	build(t, root, files)
	return root
}

func build(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/")))
		if strings.HasSuffix(p, "/") {
			require.NoError(t, os.MkdirAll(full, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
}

func TestDetectProjectMarkers(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"nothing", map[string]string{"README.md": "# x"}, nil},

		{"nextjs config js", map[string]string{"next.config.js": ""}, []string{"nextjs"}},
		{"nextjs config mjs", map[string]string{"next.config.mjs": ""}, []string{"nextjs"}},
		{"nextjs config ts", map[string]string{"next.config.ts": ""}, []string{"nextjs"}},
		{"nextjs dependency beats node-frontend", map[string]string{"package.json": `{"dependencies":{"next":"14","react":"18"}}`}, []string{"nextjs"}},
		{"nextjs with tsconfig", map[string]string{"package.json": "", "next.config.js": "", "tsconfig.json": "{}"}, []string{"nextjs", "typescript"}},

		{"nuxt config", map[string]string{"nuxt.config.ts": ""}, []string{"vue"}},
		{"vue config", map[string]string{"vue.config.js": ""}, []string{"vue"}},
		{"vue dependency", map[string]string{"package.json": `{"dependencies":{"vue":"^3"}}`}, []string{"vue"}},
		{"nuxt dev dependency", map[string]string{"package.json": `{"devDependencies":{"nuxt":"^3"}}`}, []string{"vue"}},

		{"react native", map[string]string{"package.json": `{"dependencies":{"react":"18","react-native":"0.74"}}`}, []string{"react-native"}},
		{"expo", map[string]string{"app.json": "{}", "package.json": `{"dependencies":{"expo":"51"}}`}, []string{"react-native"}},

		{"react", map[string]string{"package.json": `{"dependencies":{"react":"18","react-dom":"18"}}`}, []string{"node-frontend"}},
		{"svelte", map[string]string{"package.json": `{"dependencies":{"svelte":"4"}}`}, []string{"node-frontend"}},
		{"vite dev dependency", map[string]string{"package.json": `{"devDependencies":{"vite":"5"}}`}, []string{"node-frontend"}},
		{"tsconfig", map[string]string{"package.json": "{}", "tsconfig.json": "{}"}, []string{"node-frontend", "typescript"}},
		{"react with tsconfig", map[string]string{"package.json": `{"dependencies":{"react":"18"}}`, "tsconfig.json": ""}, []string{"node-frontend", "typescript"}},

		{"express", map[string]string{"package.json": `{"dependencies":{"express":"4"}}`}, []string{"node-backend"}},
		{"koa", map[string]string{"package.json": `{"dependencies":{"koa":"2"}}`}, []string{"node-backend"}},
		{"fastify", map[string]string{"package.json": `{"dependencies":{"fastify":"4"}}`}, []string{"node-backend"}},
		{"nestjs with tsconfig is no frontend", map[string]string{"package.json": `{"dependencies":{"@nestjs/core":"10"}}`, "tsconfig.json": ""}, []string{"typescript", "node-backend"}},
		{"package.json without known dependencies", map[string]string{"package.json": `{"dependencies":{"lodash":"4"}}`}, nil},

		{"go.mod", map[string]string{"go.mod": "module x\n"}, []string{"go"}},
		{"go.work", map[string]string{"go.work": "go 1.22\n"}, []string{"go"}},

		{"pyproject", map[string]string{"pyproject.toml": ""}, []string{"python"}},
		{"requirements", map[string]string{"requirements.txt": ""}, []string{"python"}},
		{"setup.py", map[string]string{"setup.py": ""}, []string{"python"}},
		{"Pipfile", map[string]string{"Pipfile": ""}, []string{"python"}},
		{"django", map[string]string{"manage.py": "", "requirements.txt": ""}, []string{"python"}},

		{"maven", map[string]string{"pom.xml": ""}, []string{"java-kotlin"}},
		{"gradle", map[string]string{"build.gradle": "", "settings.gradle": "", "gradlew": ""}, []string{"java-kotlin"}},
		{"gradle kts", map[string]string{"build.gradle.kts": `plugins { kotlin("jvm") }`}, []string{"java-kotlin"}},
		{"android manifest under app", map[string]string{"build.gradle": "", "settings.gradle": "", "app/src/main/AndroidManifest.xml": "<manifest/>"}, []string{"android"}},
		{"android plugin id", map[string]string{"build.gradle.kts": `plugins { id("com.android.application") }`}, []string{"android"}},
		{"android plugin apply false", map[string]string{"build.gradle": "plugins {\n  id 'com.android.application' version '8.4.0' apply false\n}\n"}, []string{"android"}},
		{"android buildscript classpath", map[string]string{"build.gradle": "classpath 'com.android.tools.build:gradle:7.4.2'"}, []string{"android"}},
		{"android module folder", map[string]string{"build.gradle": "", "src/main/AndroidManifest.xml": "<manifest/>"}, []string{"android"}},

		{"rust", map[string]string{"Cargo.toml": "", "Cargo.lock": ""}, []string{"rust"}},
		{"flutter", map[string]string{"pubspec.yaml": "", "analysis_options.yaml": ""}, []string{"flutter"}},

		{"Podfile", map[string]string{"Podfile": ""}, []string{"ios"}},
		{"Package.swift", map[string]string{"Package.swift": ""}, []string{"ios"}},
		{"xcodeproj", map[string]string{"App.xcodeproj/": ""}, []string{"ios"}},

		{"wechat miniprogram", map[string]string{"project.config.json": "{}", "app.json": "{}", "package.json": ""}, []string{"miniprogram"}},
		{"app.json with pages", map[string]string{"app.json": "{}", "pages/index/": ""}, []string{"miniprogram"}},
		{"app.json alone", map[string]string{"app.json": "{}"}, nil},
		{"alipay miniprogram", map[string]string{"mini.project.json": "{}"}, []string{"miniprogram"}},
		{"taro beats react", map[string]string{"package.json": `{"dependencies":{"@tarojs/taro":"3","react":"18"}}`}, []string{"miniprogram"}},

		{"helm chart", map[string]string{"Chart.yaml": "", "values.yaml": ""}, []string{"infra"}},
		{"kustomize", map[string]string{"kustomization.yaml": ""}, []string{"infra"}},
		{"helmfile", map[string]string{"helmfile.yaml": ""}, []string{"infra"}},
		{"skaffold", map[string]string{"skaffold.yaml": ""}, []string{"infra"}},
		{"k8s folder", map[string]string{"k8s/": ""}, []string{"infra"}},
		{"manifests folder", map[string]string{"manifests/": ""}, []string{"infra"}},
		{"charts folder", map[string]string{"charts/": ""}, []string{"infra"}},
		{"k8s file is no folder", map[string]string{"k8s": "not a folder"}, nil},

		{"Dockerfile", map[string]string{"Dockerfile": ""}, []string{"docker"}},
		{"Dockerfile variant", map[string]string{"Dockerfile.prod": ""}, []string{"docker"}},
		{"docker-compose.yml", map[string]string{"docker-compose.yml": ""}, []string{"docker"}},
		{"docker-compose.yaml", map[string]string{"docker-compose.yaml": ""}, []string{"docker"}},
		{"compose.yaml", map[string]string{"compose.yaml": ""}, []string{"docker"}},

		{"github workflows", map[string]string{".github/workflows/ci.yml": ""}, []string{"ci"}},
		{"github without workflows", map[string]string{".github/CODEOWNERS": ""}, nil},
		{"gitlab", map[string]string{".gitlab-ci.yml": ""}, []string{"ci"}},

		{"terraform", map[string]string{"main.tf": "", "variables.tf": ""}, []string{"terraform"}},

		{"dbt", map[string]string{"dbt_project.yml": ""}, []string{"data"}},
		{"airflow dags", map[string]string{"dags/etl.py": ""}, []string{"data"}},
		{"notebook", map[string]string{"analysis.ipynb": "{}"}, []string{"data"}},

		{"playwright", map[string]string{"package.json": "", "playwright.config.ts": ""}, []string{"web-testing"}},
		{"cypress dependency", map[string]string{"package.json": `{"devDependencies":{"cypress":"13"}}`}, []string{"web-testing"}},

		{"several, in table order", map[string]string{"go.mod": "", "Dockerfile": "", ".github/workflows/ci.yml": "", "main.tf": ""},
			[]string{"go", "docker", "ci", "terraform"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{".git/": ""}
			for k, v := range tt.files {
				files[k] = v
			}
			assert.Equal(t, tt.want, sctx.DetectProject(tree(t, files), ""))
		})
	}
}

func TestDetectProjectMalformedPackageJSON(t *testing.T) {
	big := `{"dependencies":{"next":"14"},"x":"` + strings.Repeat("a", sctx.MaxReadBytes) + `"}`
	tests := []struct {
		name    string
		content string
		extra   map[string]string
		want    []string
	}{
		{"not JSON", "{not json", nil, nil},
		{"truncated", `{"dependencies":{"react":`, nil, nil},
		{"dependencies not an object", `{"dependencies":["react"]}`, nil, nil},
		{"JSON array", `["react"]`, nil, nil},
		{"empty file", "", nil, nil},
		{"larger than MaxReadBytes", big, nil, nil},
		{"other markers still count", "{oops", map[string]string{"go.mod": "", "tsconfig.json": ""}, []string{"node-frontend", "typescript", "go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{".git/": "", "package.json": tt.content}
			for k, v := range tt.extra {
				files[k] = v
			}
			var got []string
			require.NotPanics(t, func() { got = sctx.DetectProject(tree(t, files), "") })
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDetectProjectWalk(t *testing.T) {
	deep := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "d"
		}
		return strings.Join(parts, "/")
	}
	tests := []struct {
		name  string
		files map[string]string
		start string
		want  []string
	}{
		{"from a subfolder up to the root",
			map[string]string{"repo/.git/": "", "repo/go.mod": "", "repo/cmd/tool/main.go": ""},
			"repo/cmd/tool", []string{"go"}},
		{"not beyond the repository root",
			map[string]string{"Cargo.toml": "", "repo/.git/": "", "repo/go.mod": "", "repo/sub/": ""},
			"repo/sub", []string{"go"}},
		{"a .git file (worktree) is a root too",
			map[string]string{"Cargo.toml": "", "repo/.git": "gitdir: /elsewhere", "repo/sub/": ""},
			"repo/sub", nil},
		{"monorepo package sees the root",
			map[string]string{"repo/.git/": "", "repo/package.json": `{"dependencies":{"express":"4"}}`, "repo/Dockerfile": "",
				"repo/apps/web/next.config.js": "", "repo/apps/web/src/": ""},
			"repo/apps/web/src", []string{"nextjs", "node-backend", "docker"}},
		{"android module inside the app folder",
			map[string]string{"repo/.git/": "", "repo/settings.gradle": "", "repo/app/build.gradle": "",
				"repo/app/src/main/AndroidManifest.xml": "", "repo/app/src/main/java/com/x/": ""},
			"repo/app/src/main/java/com/x", []string{"android"}},
		{"a missing start folder is no evidence",
			map[string]string{"repo/.git/": "", "repo/go.mod": ""},
			"repo/missing", []string{"go"}},
		{"MaxLevels folders reach the marker",
			map[string]string{"go.mod": "", deep(sctx.MaxLevels-1) + "/": ""},
			deep(sctx.MaxLevels - 1), []string{"go"}},
		{"one level more does not",
			map[string]string{"go.mod": "", deep(sctx.MaxLevels) + "/": ""},
			deep(sctx.MaxLevels), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files)
			assert.Equal(t, tt.want, sctx.DetectProject(filepath.Join(root, filepath.FromSlash(tt.start)), ""))
		})
	}
}

// TestDetectProjectStopsBeforeHome protects users whose home folder
// holds stray marker files: they are no project's, unless the prompt is
// typed in the home folder itself.
func TestDetectProjectStopsBeforeHome(t *testing.T) {
	root := tree(t, map[string]string{"Cargo.toml": "", "home/go.mod": "", "home/proj/src/": ""})
	home := filepath.Join(root, "home")
	proj := filepath.Join(home, "proj", "src")
	tests := []struct {
		name, dir, home string
		want            []string
	}{
		{"below home", proj, home, nil},
		{"home given with a trailing separator", proj, home + string(filepath.Separator), nil},
		{"home itself is looked at, not its parents", home, home, []string{"go"}},
		{"no home, no limit", proj, "", []string{"go", "rust"}},
		{"another home does not stop the walk", proj, filepath.Join(root, "elsewhere"), []string{"go", "rust"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, sctx.DetectProject(tt.dir, tt.home))
		})
	}
}

// shippedFavours is the table the hook uses.
func shippedFavours(t testing.TB) sctx.ProjectFavours {
	t.Helper()
	favours, err := sctx.ParseProjectFavours(rules.ProjectsName, rules.Projects)
	require.NoError(t, err)
	return favours
}

// TestProjectScores protects the project signal over the shipped table:
// each type's skills at their weights, the max over types.
func TestProjectScores(t *testing.T) {
	favours := shippedFavours(t)
	tests := []struct {
		name  string
		types []string
		want  map[string]float64
	}{
		{"none", nil, map[string]float64{}},
		{"unknown", []string{"cobol"}, map[string]float64{}},
		{"go", []string{"go"}, map[string]float64{"golang-pro": 1, "backend-builder": 0.4}},
		{"max over types, not sum", []string{"go", "python", "java-kotlin"},
			map[string]float64{"golang-pro": 1, "python-pro": 1, "backend-builder": 1}},
		{"weaker evidence does not lower", []string{"docker", "ci", "terraform"},
			map[string]float64{"devops-expert": 0.6, "cloud-architect": 0.8}},
		{"nextjs with typescript", []string{"nextjs", "typescript"},
			map[string]float64{"nextjs-developer": 1, "frontend-expert": 0.5, "typescript-pro": 0.6}},
		{"node-frontend", []string{"node-frontend", "typescript"},
			map[string]float64{"frontend-expert": 1, "typescript-pro": 0.6, "tester-expert": 0.2}},
		{"flutter and android", []string{"flutter", "android"},
			map[string]float64{"flutter-expert": 1, "mobile-expert": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, sctx.ProjectScores(tt.types, favours))
		})
	}
	assert.Equal(t, map[string]float64{"my-go-skill": 0.9},
		sctx.ProjectScores([]string{"go"}, sctx.ProjectFavours{"go": {"my-go-skill": 0.9}}), "any catalog's skills, by data")
	assert.Empty(t, sctx.ProjectScores([]string{"go"}, nil))
}

// TestShippedProjectFavours protects rules/projects.yaml: every type
// DetectProject reports favours some skill of the built-in catalog.
func TestShippedProjectFavours(t *testing.T) {
	favours := shippedFavours(t)
	names := sctx.ProjectTypeNames()
	require.Less(t, len(names), 64, "typeSet is a uint64")
	assert.Len(t, favours, len(names))
	cat, err := skills.Builtin()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, name := range names {
		assert.False(t, seen[name], "duplicate type %s", name)
		seen[name] = true
		assert.NotEmpty(t, favours[name], "%s favours no skill", name)
		for skill := range favours[name] {
			_, ok := cat.Lookup(skill)
			assert.True(t, ok, "%s favours %s, not a built-in skill", name, skill)
		}
	}
	for _, name := range []string{sctx.TypeNextJS, sctx.TypeVue, sctx.TypeReactNative, sctx.TypeNodeFrontend,
		sctx.TypeTypeScript, sctx.TypeNodeBackend, sctx.TypeGo, sctx.TypePython, sctx.TypeJavaKotlin,
		sctx.TypeAndroid, sctx.TypeRust, sctx.TypeFlutter, sctx.TypeIOS, sctx.TypeMiniprogram, sctx.TypeInfra,
		sctx.TypeDocker, sctx.TypeCI, sctx.TypeTerraform, sctx.TypeData, sctx.TypeWebTesting} {
		assert.True(t, seen[name], "%s is detected but not in ProjectTypeNames", name)
	}
}

// TestParseProjectFavours protects users editing a project-types file:
// what it reads, and errors naming the file and line.
func TestParseProjectFavours(t *testing.T) {
	got, err := sctx.ParseProjectFavours("p.yaml", []byte("# mine\ntypes:\n  go: {my-go-skill: 1}\n  docker:\n    ops: 0.25\n    devops-expert: .5\n"))
	require.NoError(t, err)
	assert.Equal(t, sctx.ProjectFavours{"go": {"my-go-skill": 1}, "docker": {"ops": 0.25, "devops-expert": 0.5}}, got)

	tests := []struct {
		name, data, want string
	}{
		{"bad yaml", "types:\n  go: [\n", "p.yaml: yaml: line "},
		{"no types", "typs:\n  go: {x: 1}\n", "p.yaml: no types"},
		{"types not a mapping", "types: [go]\n", "p.yaml:1: types must map"},
		{"unknown type", "types:\n  go: {x: 1}\n  cobol: {x: 1}\n", `p.yaml:3: unknown project type "cobol"`},
		{"type twice", "types:\n  go: {x: 1}\n  go: {y: 1}\n", "p.yaml:3: project type go is given twice"},
		{"no skills", "types:\n  go: {}\n", "p.yaml:2: project type go: must map"},
		{"skills a list", "types:\n  go:\n    - golang-pro\n", "p.yaml:3: project type go: must map"},
		{"weight zero", "types:\n  go:\n    x: 0\n", "p.yaml:3: project type go: skill x: weight 0 outside (0, 1]"},
		{"weight above 1", "types:\n  go:\n    x: 0.5\n    y: 1.5\n", "p.yaml:4: project type go: skill y: weight 1.5 outside (0, 1]"},
		{"negative weight", "types:\n  go: {x: -0.2}\n", "p.yaml:2: project type go: skill x: weight -0.2 outside"},
		{"not a number", "types:\n  go:\n    x: high\n", `p.yaml:3: project type go: skill x: weight "high" is not a number`},
		{"nan", "types:\n  go:\n    x: .nan\n", "p.yaml:3: project type go: skill x: weight NaN outside"},
		{"skill twice", "types:\n  go:\n    x: 1\n    x: 0.5\n", "p.yaml:4: project type go: skill x is given twice"},
		{"skill without name", "types:\n  go:\n    '': 1\n", "p.yaml:3: project type go: a skill without a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sctx.ParseProjectFavours("p.yaml", []byte(tt.data))
			require.Error(t, err)
			assert.Nil(t, got)
			assert.True(t, strings.HasPrefix(err.Error(), tt.want), "error %q does not start with %q", err, tt.want)
		})
	}
}

// BenchmarkDetectProject walks three folders up from a source folder of a
// typical Next.js repository (≈ 30 root entries, a 30-dependency
// package.json) to its .git root: the hook's cost per prompt.
func BenchmarkDetectProject(b *testing.B) {
	files := map[string]string{
		".git/": "", ".github/workflows/ci.yml": "", "public/": "", "node_modules/": "",
		"src/app/page/": "", "src/components/": "", "docs/": "", "scripts/": "",
		"package.json": `{
  "name": "web", "version": "1.0.0", "private": true,
  "scripts": {"dev": "next dev", "build": "next build", "test": "vitest"},
  "dependencies": {"next": "14.2.3", "react": "18.3.1", "react-dom": "18.3.1", "zod": "3.23.8",
    "@tanstack/react-query": "5.40.0", "clsx": "2.1.1", "date-fns": "3.6.0", "swr": "2.2.5",
    "axios": "1.7.2", "lodash": "4.17.21", "zustand": "4.5.2", "framer-motion": "11.2.10",
    "@radix-ui/react-dialog": "1.0.5", "tailwind-merge": "2.3.0", "next-auth": "4.24.7"},
  "devDependencies": {"typescript": "5.4.5", "eslint": "8.57.0", "eslint-config-next": "14.2.3",
    "@types/react": "18.3.3", "@types/node": "20.14.2", "vitest": "1.6.0", "prettier": "3.3.2",
    "tailwindcss": "3.4.4", "postcss": "8.4.38", "autoprefixer": "10.4.19", "@playwright/test": "1.44.1",
    "husky": "9.0.11", "lint-staged": "15.2.5", "@testing-library/react": "16.0.0", "msw": "2.3.1"}
}`,
		"package-lock.json": "{}", "next.config.mjs": "", "tsconfig.json": "{}", "Dockerfile": "",
		"README.md": "", "LICENSE": "", ".gitignore": "", ".eslintrc.json": "", ".prettierrc": "",
		"tailwind.config.ts": "", "postcss.config.js": "", "vitest.config.ts": "", "playwright.config.ts": "",
		"next-env.d.ts": "", ".env.example": "", "middleware.ts": "", "CHANGELOG.md": "", ".nvmrc": "",
		"src/app/page/page.tsx": "", "src/app/layout.tsx": "", "src/app/globals.css": "",
	}
	root := tree(b, files)
	start := filepath.Join(root, "src", "app", "page")
	want := []string{"nextjs", "typescript", "docker", "ci", "web-testing"}
	require.Equal(b, want, sctx.DetectProject(start, ""))
	b.ReportAllocs()
	for b.Loop() {
		sctx.DetectProject(start, "")
	}
}

// BenchmarkParseProjectFavours parses the shipped table, as the hook does
// once per process on a prompt with a working folder.
func BenchmarkParseProjectFavours(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sctx.ParseProjectFavours(rules.ProjectsName, rules.Projects); err != nil {
			b.Fatal(err)
		}
	}
}

// A marker that is a FIFO or a device (a cloned repository can carry
// either) is not read: detection neither blocks on it nor reads a
// device's endless bytes. Markers that count by their name alone
// (go.mod, build.gradle) still count.
func TestDetectProjectHostileMarkers(t *testing.T) {
	root := tree(t, map[string]string{".git/": "", "go.mod": ""})
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "package.json"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, "build.gradle")))
	done := make(chan []string, 1)
	go func() { done <- sctx.DetectProject(root, "") }()
	select {
	case got := <-done:
		assert.Equal(t, []string{"go", "java-kotlin"}, got)
	case <-time.After(5 * time.Second):
		t.Fatal("project detection blocked on a FIFO marker")
	}
}
