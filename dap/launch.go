package dap

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/go-dap"

	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/srcmap"
	"github.com/interleave-dev/interleave/engine/store"
)

// onLaunchRequest checks the launch configuration, answers, then builds the test, starts it
// under the adapter's control and sends the initialized event; configurationDone starts
// exploring or replaying. The response comes before the build: VS Code shows a session (its
// Call Stack entry, its Debug Console, its progress) only once its launch is answered, and a
// cold build takes up to a minute, during which the Run and Debug view looked idle and the
// Debug Console stayed empty. What goes wrong in the build ends the session with the reason
// in a notification, as a launch error did.
func (s *Session) onLaunchRequest(req *dap.LaunchRequest) {
	if s.currentTarget() != nil || s.building.Load() {
		s.sendError(&req.Request, errors.New("launch: the session already has a test process"))
		return
	}
	a, err := parseLaunchArgs(req.Arguments, s.cfg.AllowBuildFlags)
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	t, pkgDir, err := s.prepareTarget(a)
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	s.mu.Lock()
	s.cancelBuild = cancel
	s.mu.Unlock()
	s.building.Store(true)
	s.send(&dap.LaunchResponse{Response: s.response(&req.Request)})
	err = s.startTarget(ctx, t, pkgDir)
	s.building.Store(false)
	s.mu.Lock()
	s.cancelBuild = nil
	closed := s.closed
	if err == nil && !closed {
		s.target = t
	}
	s.mu.Unlock()
	switch {
	case closed:
		t.close()
		return
	case err != nil:
		t.close()
		if ctx.Err() != nil {
			// Stop during the build: the developer asked for it, no notification.
			s.terminatedAs("console", "terminated by the client during the build")
			return
		}
		s.terminated(err.Error())
		return
	}
	s.dbg = debugState{}
	go s.watch(t)
	s.sendEvent(&dap.ProcessEvent{Event: s.event("process"), Body: dap.ProcessEventBody{Name: t.test.Package + " " + a.Test, SystemProcessId: t.proc.pid(), IsLocalProcess: true, StartMethod: "launch"}})
	s.sendEvent(&dap.InitializedEvent{Event: s.event("initialized")})
}

// watch reports the end of the test process when nobody asked for it.
func (s *Session) watch(t *target) {
	select {
	case <-t.proc.exited():
	case <-t.ctl.dead:
	}
	s.mu.Lock()
	current := s.target == t
	if current {
		s.target = nil
	}
	s.mu.Unlock()
	if !current {
		return // disconnect or terminate stopped it
	}
	t.close()
	why := "the test process ended"
	if err := t.proc.exitErr(); err != nil {
		why += ": " + err.Error()
	}
	if tl := t.stderr.String(); tl != "" {
		why += "\n" + tl
	}
	why += "\nschedules found so far are kept in " + filepath.Join(t.moduleDir, store.Dir, "schedules")
	s.terminated(why)
}

// prepareTarget checks what a launch can check at once — the package's module, the schedule
// file and the build flags it records — and returns the target to build and the package's
// directory.
func (s *Session) prepareTarget(a *launchArgs) (_ *target, pkgDir string, err error) {
	t := &target{args: a}
	pkgDir = a.Program
	if a.Mode == "replay" {
		f, err := schedule.Load(a.ScheduleFile)
		if err != nil {
			return nil, "", fmt.Errorf("launch: %w", err)
		}
		root, err := store.ModuleRoot(f.Test.Module, filepath.Dir(a.ScheduleFile), a.Cwd)
		if err != nil {
			return nil, "", fmt.Errorf("launch: %w", err)
		}
		// The schedule's positions as they are in the source now (comments, blank lines,
		// gofmt and edits elsewhere moved them).
		f, _ = srcmap.Relocate(f, root)
		t.file = f
		t.moduleDir = root
		rel := strings.TrimPrefix(strings.TrimPrefix(f.Test.Package, f.Test.Module), "/")
		pkgDir = filepath.Join(root, filepath.FromSlash(rel))
		a.Test = f.Test.Name
	} else {
		root, _, ok := store.FindModule(pkgDir)
		if !ok {
			return nil, "", fmt.Errorf("launch: %s is not in a Go module", pkgDir)
		}
		t.moduleDir = root
	}
	if _, err := filepath.Rel(t.moduleDir, pkgDir); err != nil {
		return nil, "", fmt.Errorf("launch: %w", err)
	}
	if a.Mode == "replay" {
		// A replay builds the test as its schedule was found: the modules instrumented on
		// request and the build flags the file records (only flags that run nothing).
		if err := instrument.CheckRecordedFlags(a.ScheduleFile, t.file.BuildFlags); err != nil {
			return nil, "", fmt.Errorf("launch: %w", err)
		}
	}
	return t, pkgDir, nil
}

// onConfigurationDoneRequest starts exploring or replaying.
func (s *Session) onConfigurationDoneRequest(req *dap.ConfigurationDoneRequest) {
	s.send(&dap.ConfigurationDoneResponse{Response: s.response(&req.Request)})
	t := s.currentTarget()
	if t == nil {
		return
	}
	if t.args.Mode == "explore" {
		s.explore(t)
		return
	}
	s.startReplay(t, t.file)
}

// onCancelRequest cancels the exploration in progress; what it found is kept.
func (s *Session) onCancelRequest(req *dap.CancelRequest) {
	s.send(&dap.CancelResponse{Response: s.response(&req.Request)})
	if t := s.currentTarget(); t != nil && s.exploring.Load() {
		t.send(control.Command{Cmd: "cancel", G: -1})
	}
}
