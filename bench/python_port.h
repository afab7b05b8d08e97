#pragma once
// A plain-PyTorch port of a reference class (bench/reference/*.py) as a child process with the
// benchmark's thread count and passive waits: `make` and `compare` runs, or `serve`, which loads
// the weights once and times one forward per request, so that the benchmarks can alternate
// their forwards with the port's.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "models/registry.h"

extern char** environ;

namespace hs::bench {

inline const char* kPython = "/usr/bin/python3";

// bench/reference/<name>.
inline std::string referenceScript(const std::string& name) {
    const std::string here = __FILE__;  // CMake passes the absolute source path
    return here.substr(0, here.find_last_of('/') + 1) + "reference/" + name;
}

struct Timing {
    double wall, cpu;  // ms
};

// One forward of `model` through its run(); the records are taken out afterwards (outside the
// timing).
inline Timing forwardMs(Component& model, const NamedTensors& in, ProbeContext& probes) {
    const double c0 = cpuMs();
    const auto t0 = std::chrono::steady_clock::now();
    auto out = model.run(in, probes);
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpuMs();
    (void)out;
    probes.takeRecords();
    return {std::chrono::duration<double, std::milli>(t1 - t0).count(), c1 - c0};
}

// `script` run with `args`.
class Port {
public:
    Port(const std::string& script, const std::vector<std::string>& args, int threads) {
        // Everything the child needs is made before fork(): it only calls async-signal-safe
        // functions then.
        std::vector<std::string> strings{kPython, script};
        strings.insert(strings.end(), args.begin(), args.end());
        std::vector<std::string> env{"OMP_NUM_THREADS=" + std::to_string(threads),
                                     "OMP_WAIT_POLICY=PASSIVE"};
        for (char** e = environ; *e; ++e) {
            const std::string v = *e;
            if (v.rfind("OMP_NUM_THREADS=", 0) != 0 && v.rfind("OMP_WAIT_POLICY=", 0) != 0)
                env.push_back(v);
        }
        std::vector<char*> argv, envp;
        for (auto& a : strings) argv.push_back(a.data());
        for (auto& e : env) envp.push_back(e.data());
        argv.push_back(nullptr);
        envp.push_back(nullptr);
        int toChild[2], fromChild[2];
        if (pipe(toChild) != 0 || pipe(fromChild) != 0) return;
        m_pid = fork();
        if (m_pid == 0) {
            dup2(toChild[0], 0);
            dup2(fromChild[1], 1);
            dup2(fromChild[1], 2);
            close(toChild[0]), close(toChild[1]), close(fromChild[0]), close(fromChild[1]);
            execve(kPython, argv.data(), envp.data());
            _exit(127);
        }
        close(toChild[0]);
        close(fromChild[1]);
        m_in = fdopen(toChild[1], "w");
        m_out = fdopen(fromChild[0], "r");
    }
    ~Port() { finish(); }
    Port(const Port&) = delete;
    Port& operator=(const Port&) = delete;

    // The next line the port prints, without its newline; false at its end.
    bool line(std::string& s) {
        char buf[1024];
        if (!m_out || !std::fgets(buf, sizeof buf, m_out)) return false;
        s = buf;
        if (!s.empty() && s.back() == '\n') s.pop_back();
        return true;
    }
    // Everything it prints until it exits, and its exit status.
    int finish(std::string* text = nullptr) {
        if (m_in) std::fclose(m_in), m_in = nullptr;
        for (std::string s; line(s);)
            if (text) *text += s + "\n";
        if (m_out) std::fclose(m_out), m_out = nullptr;
        int status = -1;
        if (m_pid > 0) waitpid(m_pid, &status, 0), m_pid = -1;
        return status;
    }
    // serve: waits until the weights are loaded and warmed up (lines before "ready", such as
    // warnings, are shown only when it fails).
    bool ready() {
        std::string text;
        for (std::string s; line(s);) {
            if (s.rfind("ready", 0) == 0) return true;
            text += s + "\n";
        }
        finish(&text);
        std::printf("  the Python port did not start:\n%s", text.c_str());
        return false;
    }
    // serve: one forward of the port, timed inside it; negative when it failed.
    Timing forward() {
        if (!m_in) return {-1, -1};
        std::fputs("run\n", m_in);
        std::fflush(m_in);
        Timing t{-1, -1};
        std::string s;
        if (!line(s) || std::sscanf(s.c_str(), "%lf %lf", &t.wall, &t.cpu) != 2) t = {-1, -1};
        return t;
    }

private:
    pid_t m_pid = -1;
    FILE* m_in = nullptr;
    FILE* m_out = nullptr;
};

}  // namespace hs::bench
