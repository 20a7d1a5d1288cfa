// common/multi_gpu.cuh — what the *multi_gpu.cu programs share: one process per GPU joined by NCCL,
// the collectives the driver needs (agree, max, gather to rank 0), the timing of a whole job across
// GPUs, the measured link roofline, and drive(): the same command line, checker and output as the
// one-GPU programs, plus --gpus N.
//
// Why one process per GPU (not one process driving every GPU with ncclCommInitAll): the course's
// one-GPU launchers keep per-process state that belongs to one device — course::scratch's cached
// buffers, allow_dynamic_smem's per-kernel attribute, the L2 flush buffer, device() — exactly like
// many real libraries. In one process driving two GPUs, GPU 1's sort would be handed GPU 0's
// scratch. So drive() forks one process per GPU before CUDA is touched, each sees only its own GPU
// (CUDA_VISIBLE_DEVICES), and the one-GPU launchers run unchanged; NCCL joins the processes
// (ncclCommInitRank; NCCL still uses NVLink between GPUs a process cannot see).
//
//   rank 0 (the process you started) prints, checks (rank 0 gathers what it needs) and writes CSV;
//   every rank runs the same cases in the same order, and agrees on each outcome (skip, pass) by a
//   collective, so no rank waits in a collective the others never reach. A rank that fails alone
//   (an error only it met) or dies ends the whole job at once: it prints its one line and exits,
//   rank 0 kills the others (SIGCHLD in rank 0, PR_SET_PDEATHSIG in the others): no hang.
//
// Two transports behind one interface (all_gather, all_reduce, exchange, gather_to_lead, the pair
// links): NCCL, one rank per GPU (--gpus P: what is measured), and the copy transport, P ranks on
// one GPU (--ranks P: what `make test` checks on one GPU; common/copy_board.h).
#pragma once
#include <nccl.h>
#include <csignal>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copy_board.h"
#include "harness.cuh"
#include "slices.h"

namespace mgpu {

inline void nccl_fail(ncclResult_t r, const char* what, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: NCCL error in '%s': %s\n", file, line, what, ncclGetErrorString(r));
    std::exit(course::kExitCudaError);
}

}   // namespace mgpu

#define NCCL_CHECK(call)                                                                       \
    do {                                                                                       \
        ncclResult_t mgpu_err_ = (call);                                                       \
        if (mgpu_err_ != ncclSuccess) ::mgpu::nccl_fail(mgpu_err_, #call, __FILE__, __LINE__); \
    } while (0)

namespace mgpu {

// This process's place in the job.
struct Team {
    int rank = 0, size = 1;
    bool copy = false;   // the copy transport: every rank on one GPU, no NCCL (--ranks)
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;   // a blocking stream: ordered with the legacy default stream,
                                     // on which the course's launchers run, in enqueue order
    bool lead() const { return rank == 0; }
};
inline Team& team() {
    static Team t;
    return t;
}
inline Board& board() {
    static Board b;
    return b;
}   // the copy transport's shared memory

template <class T> ncclDataType_t nccl_type();
template <> inline ncclDataType_t nccl_type<int32_t>() { return ncclInt32; }
template <> inline ncclDataType_t nccl_type<uint32_t>() { return ncclUint32; }
template <> inline ncclDataType_t nccl_type<uint64_t>() { return ncclUint64; }
template <> inline ncclDataType_t nccl_type<float>() { return ncclFloat32; }
template <> inline ncclDataType_t nccl_type<double>() { return ncclFloat64; }

// ---- the processes ---------------------------------------------------------------------------

// How many GPUs this machine shows, asked in a child so that this process has not touched CUDA
// when it forks the ranks (a CUDA context does not survive a fork).
inline int count_gpus() {
    int fd[2];
    if (pipe(fd) != 0) return 0;
    pid_t pid = fork();
    if (pid == 0) {
        int c = 0;
        if (cudaGetDeviceCount(&c) != cudaSuccess) c = 0;
        ssize_t w = write(fd[1], &c, sizeof c);
        (void)w;
        _exit(0);
    }
    close(fd[1]);
    int c = 0;
    if (pid < 0 || read(fd[0], &c, sizeof c) != ssize_t(sizeof c)) c = 0;
    close(fd[0]);
    if (pid > 0) waitpid(pid, nullptr, 0);
    return c;
}

// Rank 0's view of the other ranks, fixed-size so that the SIGCHLD handler may touch it. `done`
// and `said` live in memory shared with the ranks (mapped before the fork): a rank sets done just
// before it exits normally, so rank 0 can tell a finished rank from one that died mid-job, and
// said when it printed why it stops (rank 0 then adds nothing).
struct Ranks {
    pid_t pid[kMaxRanks] = {};   // 0: not started, or already reaped
    volatile sig_atomic_t code[kMaxRanks] = {};
    volatile sig_atomic_t* done = nullptr;   // shared with the ranks
    volatile sig_atomic_t* said = nullptr;   // shared with the ranks
    volatile sig_atomic_t finishing = 0;     // rank 0 reaps the others itself from here on
};
inline Ranks& ranks() {
    static Ranks r;
    return r;
}

// Rank 0: a rank that exits before it finished (a CUDA error, a crash) ends the whole job with
// its status; one that finished is only reaped (its status kept for finish_team).
inline void on_child_exit(int) {
    Ranks& rk = ranks();
    for (int r = 1; r < kMaxRanks && !rk.finishing; ++r) {
        int st = 0;
        pid_t p = rk.pid[r];
        if (p <= 0 || waitpid(p, &st, WNOHANG) != p) continue;
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : course::kExitCudaError;
        if (rk.done[r]) {
            rk.code[r] = code;
            rk.pid[r] = 0;
            continue;
        }
        for (int q = 1; q < kMaxRanks; ++q)
            if (rk.pid[q] > 0 && q != r) kill(rk.pid[q], SIGKILL);
        if (!rk.said[r]) {
            const char msg[] = "error: a GPU's process ended early (a crash or a signal); job stopped\n";
            ssize_t w = write(2, msg, sizeof msg - 1);
            (void)w;
        }
        _exit(code ? code : course::kExitCudaError);
    }
}

// Forks ranks 1..gpus-1, gives each one GPU, and joins all of them in one NCCL communicator; with
// copy, every rank gets the first visible GPU and the copy board instead (no NCCL).
inline void start_team(int gpus, bool copy) {
    std::vector<std::string> visible;
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
        std::string s = v, item;
        for (char ch : s + ",") {
            if (ch == ',') {
                if (!item.empty()) visible.push_back(item);
                item.clear();
            } else item += ch;
        }
    }
    auto gpu_name = [&](int r) { return r < int(visible.size()) ? visible[r] : std::to_string(r); };
    // No NVLink multicast (NVLS) unless asked for: the course needs none, the link roofline should
    // measure the links themselves, and on shared hosts a multicast fault can take GPUs down.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    Team& t = team();
    t.size = gpus;
    t.copy = copy;
    if (copy) {
        board().create(gpus);
        const std::string first = gpu_name(0);
        visible.assign(size_t(gpus), first);   // every rank on the first visible GPU
    }
    std::vector<int> to_child;
    pid_t lead_pid = getpid();
    Ranks& rk = ranks();
    void* shared =
        mmap(nullptr, 2 * sizeof(sig_atomic_t) * kMaxRanks, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        std::perror("mmap");
        std::exit(course::kExitCudaError);
    }
    rk.done = static_cast<volatile sig_atomic_t*>(shared);
    rk.said = rk.done + kMaxRanks;
    std::signal(SIGCHLD, on_child_exit);   // before the first fork: no early exit goes unseen
    std::fflush(stdout);
    for (int r = 1; r < gpus; ++r) {
        int fd[2];
        if (pipe(fd) != 0) {
            std::perror("pipe");
            std::exit(course::kExitCudaError);
        }
        pid_t pid = fork();
        if (pid < 0) {
            std::perror("fork");
            std::exit(course::kExitCudaError);
        }
        if (pid == 0) {
            std::signal(SIGCHLD, SIG_DFL);
            prctl(PR_SET_PDEATHSIG, SIGKILL);   // rank 0 gone: this rank goes too
            if (getppid() != lead_pid) _exit(course::kExitCudaError);
            close(fd[1]);
            for (int c : to_child) close(c);
            t.rank = r;
            setenv("CUDA_VISIBLE_DEVICES", gpu_name(r).c_str(), 1);
            if (!std::freopen("/dev/null", "w", stdout)) _exit(course::kExitCudaError);   // rank 0 speaks
            std::atexit([] { ranks().said[team().rank] = 1; });   // exit() after a CUDA error: its line is out
            if (copy) {
                close(fd[0]);
                CUDA_CHECK(cudaSetDevice(0));
                CUDA_CHECK(cudaStreamCreate(&t.stream));
                return;
            }
            ncclUniqueId id;
            if (read(fd[0], &id, sizeof id) != ssize_t(sizeof id)) _exit(course::kExitCudaError);
            close(fd[0]);
            CUDA_CHECK(cudaSetDevice(0));
            NCCL_CHECK(ncclCommInitRank(&t.comm, gpus, id, r));
            CUDA_CHECK(cudaStreamCreate(&t.stream));
            return;
        }
        close(fd[0]);
        to_child.push_back(fd[1]);
        rk.pid[r] = pid;
    }
    setenv("CUDA_VISIBLE_DEVICES", gpu_name(0).c_str(), 1);
    if (copy) {
        for (int c : to_child) close(c);
        CUDA_CHECK(cudaSetDevice(0));
        CUDA_CHECK(cudaStreamCreate(&t.stream));
        return;
    }
    ncclUniqueId id;
    NCCL_CHECK(ncclGetUniqueId(&id));
    for (int c : to_child) {
        if (write(c, &id, sizeof id) != ssize_t(sizeof id)) {
            std::perror("write");
            std::exit(course::kExitCudaError);
        }
        close(c);
    }
    CUDA_CHECK(cudaSetDevice(0));
    NCCL_CHECK(ncclCommInitRank(&t.comm, gpus, id, 0));
    CUDA_CHECK(cudaStreamCreate(&t.stream));
}

// ---- memory that the exchange writes into in place --------------------------------------------

// NCCL's send and receive normally pass through a staging buffer of NCCL's own on the receiving
// GPU: the sender's threads write into it over NVLink, the receiver's threads copy it out, so every
// byte exchanged crosses the receiver's memory twice and ties up threads on both GPUs. When the
// buffers at both ends are registered with the communicator (ncclCommRegister), the sender writes
// straight into the receiver's buffer. NCCL can map a buffer into another process only if it can
// export it: memory from ncclMemAlloc (CUDA's virtual memory API), not from cudaMalloc.
// A LinkArray is such memory, registered with every pair communicator (mgpu::pair_links) as soon as
// both exist, and deregistered before it is freed. Registration is local (not collective), so it
// may happen in a job's constructor; every rank registers the same buffers, as NCCL requires.
// Registered, 11's exchange on 4 GPUs measured faster than from cudaMalloc (lesson04_sort/TUNING.md).
struct LinkRegistration {
    void* p = nullptr;
    size_t bytes = 0;
    std::vector<std::pair<ncclComm_t, void*>> handles;   // (communicator, NCCL's handle)
};
inline std::vector<LinkRegistration*>& link_registry() {
    static std::vector<LinkRegistration*> r;
    return r;
}
inline void register_with_pair_links(LinkRegistration& r, const std::vector<ncclComm_t>& comms) {
    for (ncclComm_t c : comms) {
        if (!c) continue;
        void* h = nullptr;
        NCCL_CHECK(ncclCommRegister(c, r.p, r.bytes, &h));
        r.handles.push_back({c, h});
    }
}
inline void deregister_link_memory(LinkRegistration& r) {
    for (auto& ch : r.handles)
        if (ch.second) NCCL_CHECK(ncclCommDeregister(ch.first, ch.second));
    r.handles.clear();
}

// A communicator for every pair of GPUs, for an all-to-all exchange: the P - 1 pairings of a
// round-robin schedule (pair_partner, common/slices.h; "round" d names one of them), each pair on
// its own communicator and stream, all at once. NCCL gives each communicator's point-to-point work
// a set of channels (CUDA blocks, 32 here); in the team's communicator a GPU that feeds P - 1 peers
// at once shares each channel's threads among them. Measured on 4 GPUs (lesson04_sort/TUNING.md):
// a communicator per pair, all at once, is as fast as the team's communicator given 64 channels
// (NCCL_MIN_P2P_NCHANNELS=64) and much faster than it with NCCL's default. One pair at a time is
// slower however the pair's communicator is made (split, split with 32 CTAs, or made fresh by
// ncclCommInitRank): a pair alone in a 4-GPU job moved a fraction of what a 2-GPU job's pair
// moves (not explained).
// Made once, when first asked for (every rank must ask at the same point: ncclCommSplit is
// collective), one split per round; with odd P the GPU paired with the phantom sits the round out.
// On 2 GPUs the team's own communicator is the pair's. finish_team destroys them.
struct PairLinks {
    std::vector<ncclComm_t> comm;       // comm[p]: this GPU and GPU p (none for p == rank)
    std::vector<int> peer;              // GPU p's rank in comm[p]
    std::vector<int> partner;           // partner[d]: this GPU's partner in round d (>= P: none)
    std::vector<cudaStream_t> stream;   // stream[d]: round d's, at the highest priority
    cudaEvent_t ready = nullptr;        // recorded on the job's stream: the data to send is there
    std::vector<cudaEvent_t> arrived;   // arrived[d]: round d is over (this GPU sent and received)
};
inline PairLinks& pair_links_made() {
    static PairLinks pl;
    return pl;
}   // as made so far (none: empty)
inline PairLinks& pair_links() {
    PairLinks& pl = pair_links_made();
    Team& t = team();
    if (!pl.comm.empty() || t.size < 2 || t.copy) return pl;   // the copy transport needs no links
    const int P = t.size, g = t.rank, rounds = pair_rounds(P);
    pl.comm.assign(P, nullptr);
    pl.peer.assign(P, 0);
    pl.partner.assign(rounds, P);
    pl.stream.assign(rounds, nullptr);
    pl.arrived.assign(rounds, nullptr);
    int lowest = 0, highest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    for (int d = 0; d < rounds; ++d) {
        const int partner = pair_partner(g, d, P);
        const bool real = partner < P;
        if (P == 2) {
            pl.comm[partner] = t.comm;
        } else {
            ncclComm_t c = nullptr;
            NCCL_CHECK(ncclCommSplit(t.comm, real ? std::min(g, partner) : NCCL_SPLIT_NOCOLOR, g, &c, nullptr));
            if (real) pl.comm[partner] = c;
        }
        CUDA_CHECK(cudaStreamCreateWithPriority(&pl.stream[d], cudaStreamNonBlocking, highest));
        CUDA_CHECK(cudaEventCreateWithFlags(&pl.arrived[d], cudaEventDisableTiming));
        if (!real) continue;
        pl.partner[d] = partner;
        pl.peer[partner] = g < partner ? 1 : 0;
    }
    CUDA_CHECK(cudaEventCreateWithFlags(&pl.ready, cudaEventDisableTiming));
    for (LinkRegistration* r : link_registry())
        register_with_pair_links(*r, pl.comm);   // LinkArrays made before the links
    return pl;
}

// Device memory for an exchange's send and receive buffers (see LinkRegistration above); plain
// cudaMalloc memory under the copy transport, which registers nothing.
template <class T> class LinkArray {
public:
    LinkArray() = default;
    explicit LinkArray(size_t n) : n_(n) {
        if (!n) return;
        reg_ = std::make_unique<LinkRegistration>();
        reg_->bytes = n * sizeof(T);
        if (team().copy) {
            CUDA_CHECK(cudaMalloc(&reg_->p, reg_->bytes));
            return;
        }
        NCCL_CHECK(ncclMemAlloc(&reg_->p, reg_->bytes));
        register_with_pair_links(*reg_, pair_links_made().comm);
        link_registry().push_back(reg_.get());
    }
    LinkArray(LinkArray&& o) noexcept = default;
    LinkArray& operator=(LinkArray&& o) noexcept {
        std::swap(reg_, o.reg_);
        std::swap(n_, o.n_);
        return *this;
    }
    ~LinkArray() {
        if (!reg_) return;
        if (team().copy) {
            cudaFree(reg_->p);
            return;
        }
        auto& all = link_registry();
        all.erase(std::find(all.begin(), all.end(), reg_.get()));
        deregister_link_memory(*reg_);
        ncclMemFree(reg_->p);
    }
    T* data() const { return reg_ ? static_cast<T*>(reg_->p) : nullptr; }
    size_t size() const { return n_; }

private:
    std::unique_ptr<LinkRegistration> reg_;
    size_t n_ = 0;
};

// Rank 0: waits up to `seconds` for a rank's process to end (SIGKILL after that); its exit code,
// 3 for a signal, -1 when it had to be killed. pid <= 0 (none, or reaped already): 0.
inline int reap(pid_t pid, int seconds) {
    if (pid <= 0) return 0;
    int st = 0;
    for (int i = 0; i < seconds * 100; ++i) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : course::kExitCudaError;
        if (w < 0) return 0;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

// Every rank ends here with the status it computed (the same on every rank: outcomes are agreed);
// rank 0 waits for the others and returns the worst status.
inline int finish_team(int code) {
    Team& t = team();
    if (t.comm) {
        CUDA_CHECK(cudaStreamSynchronize(t.stream));
        PairLinks& pl = pair_links_made();
        for (cudaStream_t s : pl.stream) {
            CUDA_CHECK(cudaStreamSynchronize(s));
            CUDA_CHECK(cudaStreamDestroy(s));
        }
        for (cudaEvent_t e : pl.arrived) CUDA_CHECK(cudaEventDestroy(e));
        if (pl.ready) CUDA_CHECK(cudaEventDestroy(pl.ready));
        for (LinkRegistration* r : link_registry()) deregister_link_memory(*r);   // before their communicators go
        for (ncclComm_t c : pl.comm)
            if (c && c != t.comm) NCCL_CHECK(ncclCommDestroy(c));
        pl = PairLinks{};
        NCCL_CHECK(ncclCommDestroy(t.comm));
        t.comm = nullptr;
    }
    if (t.copy) CUDA_CHECK(cudaDeviceSynchronize());
    Ranks& rk = ranks();
    if (!t.lead()) {
        std::fflush(stderr);
        rk.done[t.rank] = 1;   // finished: rank 0 must not take this exit for a crash
        _exit(code);
    }
    rk.finishing = 1;
    // The others are past their last collective: they end within seconds, or are stopped.
    for (int r = 1; r < t.size; ++r) {
        int cc = reap(rk.pid[r], 60);
        if (cc < 0) {
            std::fprintf(stderr, "error: GPU %d's process did not end within 60 s of the job's end; stopped\n", r);
            cc = course::kExitCudaError;
        } else if (rk.pid[r] <= 0) {
            cc = rk.code[r];   // reaped earlier by on_child_exit
        }
        if (code == 0 && cc != 0) code = cc;
    }
    return code;
}

// A failure met by this rank alone (the CSV append on rank 0, a receive past a limit, host memory
// running out): the others may already wait in the next collective, so this rank ends the whole
// job now, with its one line. A rank other than 0 exits (rank 0's SIGCHLD handler stops the rest
// and exits with its code); rank 0 kills the others, reaps them (bounded) and exits with the code.
inline int fail_alone(int code, const std::string& message) {
    Team& t = team();
    Ranks& rk = ranks();
    std::fflush(stdout);
    if (t.size > 1 && !t.lead()) {
        std::fprintf(stderr, "error: GPU %d: %s\n", t.rank, course::one_line(message).c_str());
        std::fflush(stderr);
        rk.said[t.rank] = 1;
        _exit(code);
    }
    std::fprintf(stderr, "error: %s\n", course::one_line(message).c_str());
    std::fflush(stderr);
    rk.finishing = 1;
    for (int r = 1; r < t.size; ++r)
        if (rk.pid[r] > 0) kill(rk.pid[r], SIGKILL);
    for (int r = 1; r < t.size; ++r) reap(rk.pid[r], 10);
    std::fflush(nullptr);
    _exit(code);   // no teardown: a communicator whose peers were killed may wait for them
}

// ---- small collectives on the host's values (each waits for its answer) ----------------------

// The copy transport's all-reduce: every rank's `count` values (host or device memory, as the two
// copy kinds say) to every rank through the board, each rank reducing them in rank order.
template <class T>
void copy_all_reduce(const T* send, T* recv, size_t count, ncclRedOp_t op, cudaMemcpyKind to_board,
                     cudaMemcpyKind from_board) {
    Team& t = team();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<BoardPiece> sends, recvs;
    std::vector<T> got(count * size_t(t.size)), acc(count);
    for (int q = 0; q < t.size; ++q) {
        sends.push_back({q, send, nullptr, count * sizeof(T)});
        recvs.push_back({q, nullptr, got.data() + size_t(q) * count, count * sizeof(T)});
    }
    board().all_to_all(
        t.rank, sends, recvs,
        [&](void* b, const void* src, size_t bytes) { CUDA_CHECK(cudaMemcpy(b, src, bytes, to_board)); },
        [](void* dst, const void* b, size_t bytes) { std::memcpy(dst, b, bytes); });
    for (size_t i = 0; i < count; ++i) {
        T a = got[i];
        for (int q = 1; q < t.size; ++q) {
            T v = got[size_t(q) * count + i];
            a = op == ncclSum   ? T(a + v)
                : op == ncclMax ? std::max(a, v)
                : op == ncclMin ? std::min(a, v)
                                : throw std::logic_error("copy transport: reduction not offered");
        }
        acc[i] = a;
    }
    CUDA_CHECK(cudaMemcpy(recv, acc.data(), count * sizeof(T), from_board));
}

template <class T> void all_reduce_host(T* values, size_t count, ncclRedOp_t op) {
    Team& t = team();
    if (t.copy) return copy_all_reduce(values, values, count, op, cudaMemcpyHostToHost, cudaMemcpyHostToHost);
    static course::DeviceArray<double> buf;   // room for the largest call so far
    size_t bytes = count * sizeof(T);
    if (buf.size() * sizeof(double) < bytes) buf = course::DeviceArray<double>((bytes + 7) / 8 + 64);
    T* d = reinterpret_cast<T*>(buf.data());
    CUDA_CHECK(cudaMemcpyAsync(d, values, bytes, cudaMemcpyHostToDevice, t.stream));
    NCCL_CHECK(ncclAllReduce(d, d, count, nccl_type<T>(), op, t.comm, t.stream));
    CUDA_CHECK(cudaMemcpyAsync(values, d, bytes, cudaMemcpyDeviceToHost, t.stream));
    CUDA_CHECK(cudaStreamSynchronize(t.stream));
}
inline int max_over_ranks(int v) {
    int32_t x = v;
    all_reduce_host(&x, 1, ncclMax);
    return x;
}
inline double max_over_ranks(double v) {
    all_reduce_host(&v, 1, ncclMax);
    return v;
}
// true when every rank says true
inline bool all_ranks(bool mine) { return max_over_ranks(mine ? 0 : 1) == 0; }

// Rank 0 receives every rank's `count` elements of d (counts may differ), in rank order: the one
// array the checker reads. Other ranks return an empty vector. Collective.
template <class T> std::vector<T> gather_to_lead(const T* d, size_t count) {
    Team& t = team();
    std::vector<double> counts(t.size, 0.0);
    counts[t.rank] = double(count);
    all_reduce_host(counts.data(), counts.size(), ncclSum);   // exact: counts < 2^53
    std::vector<T> all;
    if (t.lead()) {
        size_t total = 0;
        for (double c : counts) total += size_t(c);
        all.resize(total);
        if (count) CUDA_CHECK(cudaMemcpy(all.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    if (t.copy) {   // every rank's slice to rank 0 through the board, straight into `all`
        std::vector<BoardPiece> sends, recvs;
        if (!t.lead() && count) sends.push_back({0, d, nullptr, count * sizeof(T)});
        size_t at = count;
        for (int r = 1; r < t.size && t.lead(); at += size_t(counts[r]), ++r)
            recvs.push_back({r, nullptr, all.data() + at, size_t(counts[r]) * sizeof(T)});
        CUDA_CHECK(cudaDeviceSynchronize());
        board().all_to_all(
            t.rank, sends, recvs,
            [](void* b, const void* src, size_t bytes) {
                CUDA_CHECK(cudaMemcpy(b, src, bytes, cudaMemcpyDeviceToHost));
            },
            [](void* dst, const void* b, size_t bytes) { std::memcpy(dst, b, bytes); });
        return all;
    }
    size_t at = count;
    for (int r = 1; r < t.size; ++r) {
        size_t c = size_t(counts[r]);
        if (c == 0) continue;
        course::DeviceArray<T> staging(t.lead() ? c : 0);
        NCCL_CHECK(ncclGroupStart());
        if (t.lead()) NCCL_CHECK(ncclRecv(staging.data(), c * sizeof(T), ncclUint8, r, t.comm, t.stream));
        if (t.rank == r) NCCL_CHECK(ncclSend(d, c * sizeof(T), ncclUint8, 0, t.comm, t.stream));
        NCCL_CHECK(ncclGroupEnd());
        CUDA_CHECK(cudaStreamSynchronize(t.stream));
        if (t.lead()) {
            CUDA_CHECK(cudaMemcpy(all.data() + at, staging.data(), c * sizeof(T), cudaMemcpyDeviceToHost));
            at += c;
        }
    }
    return all;
}

// Rank 0's check result, told to every rank (the message stays on rank 0, which prints it).
inline course::CheckResult agree(course::CheckResult mine) {
    bool ok = all_ranks(mine.ok);
    if (ok) return course::CheckResult::pass();
    if (mine.ok) mine = course::CheckResult::fail("another GPU's check failed (its message is on stderr)");
    else if (!team().lead()) std::fprintf(stderr, "GPU %d: %s\n", team().rank, mine.message.c_str());
    return mine;
}

// ---- the programs' collectives on device memory, through either transport ----------------------
// NCCL: enqueued on team().stream, as the NCCL calls they stand for. Copy transport: done when they
// return (every stream synchronised before and after), so a program's later waits on the pair
// links' events (none exist then) are no-ops.

// Copy transport: device pieces (BoardPiece: peer, src or dst, bytes) to and from every rank at once.
inline void copy_exchange(const std::vector<BoardPiece>& sends, const std::vector<BoardPiece>& recvs) {
    CUDA_CHECK(cudaDeviceSynchronize());   // what is sent is written, whichever stream wrote it
    board().all_to_all(
        team().rank, sends, recvs,
        [](void* b, const void* src, size_t bytes) { CUDA_CHECK(cudaMemcpy(b, src, bytes, cudaMemcpyDeviceToHost)); },
        [](void* dst, const void* b, size_t bytes) { CUDA_CHECK(cudaMemcpy(dst, b, bytes, cudaMemcpyHostToDevice)); });
    CUDA_CHECK(cudaDeviceSynchronize());   // what arrived is in place before any stream reads it
}

// Every rank's `bytes` at send land at recv + rank x bytes on every rank (ncclAllGather).
inline void all_gather(const void* send, void* recv, size_t bytes) {
    Team& t = team();
    if (!t.copy) {
        NCCL_CHECK(ncclAllGather(send, recv, bytes, ncclUint8, t.comm, t.stream));
        return;
    }
    std::vector<BoardPiece> sends, recvs;
    for (int q = 0; q < t.size; ++q) {
        sends.push_back({q, send, nullptr, bytes});
        recvs.push_back({q, nullptr, static_cast<unsigned char*>(recv) + size_t(q) * bytes, bytes});
    }
    copy_exchange(sends, recvs);
}

// The element-wise sum, max or min of every rank's `count` values, on every rank (ncclAllReduce;
// send == recv allowed).
template <class T> void all_reduce(const T* send, T* recv, size_t count, ncclRedOp_t op) {
    Team& t = team();
    if (!t.copy) NCCL_CHECK(ncclAllReduce(send, recv, count, nccl_type<T>(), op, t.comm, t.stream));
    else copy_all_reduce(send, recv, count, op, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice);
}

// Several collectives as one NCCL group (nothing under the copy transport, whose calls complete).
inline void group_start() {
    if (!team().copy) NCCL_CHECK(ncclGroupStart());
}
inline void group_end() {
    if (!team().copy) NCCL_CHECK(ncclGroupEnd());
}

// ---- one case, as each rank holds it ---------------------------------------------------------

// Events on this rank's stream at the boundaries of a job's named steps.
class Steps {
public:
    void name(std::vector<std::string> names) {
        names_ = std::move(names);
        for (auto e : ev_) CUDA_CHECK(cudaEventDestroy(e));
        ev_.assign(names_.size() + 1, nullptr);
        for (auto& e : ev_) CUDA_CHECK(cudaEventCreate(&e));
    }
    ~Steps() {
        for (auto e : ev_) cudaEventDestroy(e);
    }
    void begin() {
        if (!ev_.empty()) CUDA_CHECK(cudaEventRecord(ev_[0], team().stream));
    }
    void end(int step) { end(step, team().stream); }
    // A step that ends on another stream (11's exchange, whose rounds run beside the first merges).
    void end(int step, cudaStream_t s) { CUDA_CHECK(cudaEventRecord(ev_[step + 1], s)); }
    std::vector<double> ms() const {   // after the stream is synchronised
        std::vector<double> out;
        for (size_t i = 0; i + 1 < ev_.size(); ++i) {
            float t = 0;
            CUDA_CHECK(cudaEventElapsedTime(&t, ev_[i], ev_[i + 1]));
            out.push_back(t);
        }
        return out;
    }
    const std::vector<std::string>& names() const { return names_; }

private:
    std::vector<std::string> names_;
    std::vector<cudaEvent_t> ev_;
};

class Job {
public:
    virtual ~Job() = default;
    // The whole job on this rank: the course's launchers (legacy default stream) and NCCL calls
    // (team().stream), steps marked with steps.begin() / steps.end(i). Every rank calls it.
    virtual void run() = 0;
    virtual void poison() = 0;
    // Collective: every rank calls it; pass each rank's own verdict through agree().
    virtual course::CheckResult check() = 0;
    uint64_t n = 0;     // the whole problem's size
    double bytes = 0;   // bytes the problem must move (as the one-GPU version counts them)
    Steps steps;
    std::vector<double> link_bytes;   // per step: bytes this rank sends to other GPUs (0: none)
};

// ---- timing a job across GPUs ------------------------------------------------------------------

// A barrier on the GPUs: a one-word all-reduce; it completes on each GPU when every GPU reached it.
inline void gpu_barrier() {
    if (team().copy) {   // the ranks share one GPU: each waits for its work, then for the others
        CUDA_CHECK(cudaDeviceSynchronize());
        board().barrier();
        return;
    }
    static course::DeviceArray<int32_t> word = [] {
        course::DeviceArray<int32_t> w(1);
        CUDA_CHECK(cudaMemset(w.data(), 0, sizeof(int32_t)));   // initcheck: NCCL reads it
        return w;
    }();
    NCCL_CHECK(ncclAllReduce(word.data(), word.data(), 1, ncclInt32, ncclSum, team().comm, team().stream));
}

struct JobTiming {
    course::Timing whole;          // max over GPUs of (barrier -> this GPU's last step), per rep
    std::vector<double> step_ms;   // per step: median over reps of the max over GPUs
};

// Each rep: every GPU flushes its L2, meets the others at a GPU barrier, records its start, runs
// its share, records its end; the rep's time is the slowest GPU's. Median and min over reps.
template <class Work> JobTiming time_job(Work&& work, Steps* steps, int reps, int warmup = 2) {
    Team& t = team();
    for (int i = 0; i < warmup; ++i) work();
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    size_t ns = steps ? steps->names().size() : 0;
    std::vector<double> ms(size_t(reps) * (1 + ns));   // per rep: the whole, then each step
    for (int r = 0; r < reps; ++r) {
        course::flush_l2();
        gpu_barrier();
        CUDA_CHECK(cudaEventRecord(start, t.stream));
        work();
        CUDA_CHECK(cudaEventRecord(stop, t.stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float f = 0;
        CUDA_CHECK(cudaEventElapsedTime(&f, start, stop));
        ms[size_t(r) * (1 + ns)] = f;
        if (ns) {
            std::vector<double> s = steps->ms();
            for (size_t i = 0; i < ns; ++i) ms[size_t(r) * (1 + ns) + 1 + i] = s[i];
        }
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    all_reduce_host(ms.data(), ms.size(), ncclMax);
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        size_t m = v.size();
        return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
    };
    JobTiming jt;
    std::vector<double> whole;
    for (int r = 0; r < reps; ++r) whole.push_back(ms[size_t(r) * (1 + ns)]);
    jt.whole.reps = reps;
    jt.whole.ms_median = median(whole);
    jt.whole.ms_min = *std::min_element(whole.begin(), whole.end());
    for (size_t i = 0; i < ns; ++i) {
        std::vector<double> v;
        for (int r = 0; r < reps; ++r) v.push_back(ms[size_t(r) * (1 + ns) + 1 + i]);
        jt.step_ms.push_back(median(v));
    }
    return jt;
}

// The link roofline, measured once per run: ncclAllReduce (sum of floats) of a large buffer.
// Its bus bandwidth (algorithm bandwidth x 2(P-1)/P, the convention of nccl-tests) is what each
// GPU's links carry in each direction: the ceiling for an exchange step's bytes per GPU.
inline double link_busbw_gbps(size_t* measured_bytes = nullptr) {
    static double gbps = -1;
    static size_t bytes = 0;
    Team& t = team();
    if (gbps < 0) {
        gbps = 0;
        if (t.size > 1 && !t.copy) {   // the copy transport has no link to measure
            size_t free_b = 0, total_b = 0;
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            // 512 MiB, or 64 MiB where that does not fit on every GPU (all GPUs must agree).
            bytes =
                all_ranks(double(512ull << 20) + (1ull << 30) < double(free_b)) ? size_t(512) << 20 : size_t(64) << 20;
            bool fits = all_ranks(double(bytes) + (256ull << 20) < double(free_b));
            if (fits) {
                course::DeviceArray<float> buf(bytes / sizeof(float));
                CUDA_CHECK(cudaMemset(buf.data(), 0, bytes));
                JobTiming jt = time_job(
                    [&] {
                        NCCL_CHECK(
                            ncclAllReduce(buf.data(), buf.data(), buf.size(), ncclFloat32, ncclSum, t.comm, t.stream));
                    },
                    nullptr, 10);
                double algbw = double(bytes) / (jt.whole.ms_median * 1e6);
                gbps = algbw * 2.0 * (t.size - 1) / t.size;
                if (t.lead())
                    std::printf(
                        "link: ncclAllReduce of %zu MiB on %d GPUs: %.3f ms, bus bandwidth %.1f GB/s "
                        "(the exchange steps' roofline)\n",
                        bytes >> 20, t.size, jt.whole.ms_median, gbps);
            }
        }
    }
    if (measured_bytes) *measured_bytes = bytes;
    return gbps;
}

// The copy roofline of the whole job: every GPU copies its share of the bytes at once (bytes / P,
// half read, half written), timed like a job; the aggregate GB/s is the ceiling for a job that
// moves those bytes through memory.
inline double copy_gbps_all(double bytes, int reps) {
    static std::vector<std::pair<double, double>> cache;
    for (auto& c : cache)
        if (c.first == bytes) return c.second;
    Team& t = team();
    size_t half = std::max<size_t>(size_t(bytes / t.size / 2), 4);
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (!all_ranks(2.0 * half + (64 << 20) < double(free_b))) return 0;
    course::DeviceArray<unsigned char> a(half), b(half);
    CUDA_CHECK(cudaMemset(a.data(), 1, half));
    JobTiming jt =
        time_job([&] { CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), half, cudaMemcpyDeviceToDevice, t.stream)); },
                 nullptr, std::max(reps, 5));
    double g = 2.0 * half * t.size / (jt.whole.ms_median * 1e6);
    cache.push_back({bytes, g});
    return g;
}

// ---- the program -------------------------------------------------------------------------------

using MakeJob = std::function<std::unique_ptr<Job>(const course::Options&, const course::Case&)>;

// "gpus=P" (NCCL), or "gpus=1 ranks=P" (the copy transport: P ranks timed on one GPU, no link).
inline std::string param_text(const course::LessonDef& def, const course::Case& c) {
    std::string p = def.cli.param_name.empty() ? "" : def.cli.param_name + "=" + std::to_string(c.param) + " ";
    const Team& t = team();
    return p + (t.copy ? "gpus=1 ranks=" : "gpus=") + std::to_string(t.size);
}

// Rank 0 alone writes the CSV: a row that cannot be written (a full disk) is this rank's failure
// alone, which ends the job (fail_alone). The path was opened for appending while parsing.
inline void append_csv(const std::string& path, const course::LessonDef& def, const course::Case& c,
                       const course::Timing& t, double gbps, double copy, bool ok) {
    FILE* f = course::open_csv(path);
    std::fprintf(f, "%s,%s,%s,%s,%llu,%s,%s,%d,%.6f,%.6f,%.2f,%.2f,%s%s\n", course::device().name.c_str(),
                 def.lesson.c_str(), def.version.c_str(), c.dtype.empty() ? "-" : c.dtype.c_str(),
                 (unsigned long long)c.n, c.dist.c_str(), param_text(def, c).c_str(), t.reps, t.ms_median, t.ms_min,
                 gbps, copy, ok ? "PASS" : "FAIL", course::csv_provenance().c_str());
    bool written = !std::ferror(f);
    if (std::fclose(f) != 0 || !written) throw course::UsageError("cannot write a row to --csv file '" + path + "'");
}

// An outcome every rank reached together (a case refused or skipped on every rank alike): the job
// ends in order, rank 0 saying why. Any other exception is one rank's alone (fail_alone).
struct TeamRefusal : course::UsageError {
    using UsageError::UsageError;
};
struct TeamSkip : course::SkipCase {
    using SkipCase::SkipCase;
};

// Host memory is the host's, shared by every rank (they all run here), and each rank builds the
// whole input: a job asks for its rank's need, checked as P x that against what the host had
// free before the case (every rank compares the same numbers, so they agree). Under the copy
// transport the GPU is shared too: device memory is checked the same way.
struct Room {
    double host = 0, device = 0;
};   // free when the case began (the least any rank saw)
inline Room& room() {
    static Room r;
    return r;
}
inline void take_room_snapshot() {
    double host = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)), dev = 0;
    if (team().copy) {
        size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        dev = double(free_b);
    }
    double least[2] = {-host, -dev};
    all_reduce_host(least, 2, ncclMax);
    room() = Room{-least[0], -least[1]};
}
inline void require_host_memory(double per_rank) {
    const int P = team().size;
    const double need = per_rank * P, avail = room().host;
    if (avail > 0 && need > 0.9 * avail)
        throw course::SkipCase("needs " + course::gib(need) + " of host memory (" + std::to_string(P) + " ranks x " +
                               course::gib(per_rank) + "), " + course::gib(avail) + " available");
}
inline void require_device_memory(double per_rank) {
    const Team& t = team();
    if (!t.copy) return course::require_device_memory(per_rank);   // one rank per GPU
    const double need = (per_rank + 64.0 * (1 << 20)) * t.size;
    if (need > room().device)
        throw course::SkipCase("needs " + course::gib(need) + " of GPU memory for " + std::to_string(t.size) +
                               " ranks on one GPU, " + course::gib(room().device) + " free");
}

// One case on every rank. Returns 1 pass, 0 fail, -1 skipped. Same flow as course::run_case.
inline int run_case(const course::LessonDef& def, const MakeJob& make_job, const course::Options& o,
                    const course::Case& c, bool test_mode) {
    Team& t = team();
    const bool lead = t.lead();
    std::unique_ptr<Job> job;
    int refused = 0;   // 0 built, 1 skipped (SkipCase), 2 usage error
    std::string why;
    take_room_snapshot();   // before any rank builds this case's input
    try {
        job = make_job(o, c);
    } catch (const course::SkipCase& s) {
        refused = 1;
        why = s.what();
    } catch (const course::UsageError& u) {
        refused = 2;
        why = u.what();
    }
    refused = max_over_ranks(refused);   // a case runs on every GPU or on none
    std::string what = course::describe(def, c) + (t.copy ? " ranks=" : " gpus=") + std::to_string(t.size);
    if (why.empty() && refused) why = "another GPU could not set this case up";
    if (refused == 2) throw TeamRefusal(why);
    if (refused == 1) {
        if (!test_mode && !o.sweep) throw TeamSkip(why);
        if (lead) std::printf("skip  %-40s %s\n", what.c_str(), why.c_str());
        return -1;
    }
    static bool announced = false;
    if (!announced && lead) {
        const course::DeviceInfo& dev = course::device();
        if (t.copy)
            std::printf(
                "%s/%s: %d ranks on one %s (%d SMs, sm_%d%d), one process each, exchanging through host "
                "memory (the copy transport: checks every rank's data path; its times are no multi-GPU "
                "measurement), seed %llu\n",
                def.lesson.c_str(), def.version.c_str(), t.size, dev.name.c_str(), dev.sm_count, dev.cc_major,
                dev.cc_minor, (unsigned long long)o.seed);
        else
            std::printf("%s/%s on %d x %s (%d SMs, sm_%d%d each), one process per GPU, seed %llu\n", def.lesson.c_str(),
                        def.version.c_str(), t.size, dev.name.c_str(), dev.sm_count, dev.cc_major, dev.cc_minor,
                        (unsigned long long)o.seed);
        announced = true;
    }
    auto checked_run = [&] {
        job->poison();
        job->run();
        CUDA_CHECK(cudaDeviceSynchronize());
        return job->check();
    };
    course::CheckResult first = checked_run();
    if (test_mode) {
        course::CheckResult second = first;
        if (first.ok) {
            second = checked_run();
            if (!second.ok) second.message = "second run differs: " + second.message;
        }
        bool ok = first.ok && second.ok;
        if (lead) {
            std::printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), ok ? "" : "  ",
                        ok ? "" : (first.ok ? second : first).message.c_str());
            std::fflush(stdout);
        }
        return ok ? 1 : 0;
    }
    if (!first.ok) {
        if (lead) std::printf("%-24s %s  FAIL  %s\n", def.version.c_str(), what.c_str(), first.message.c_str());
        return 0;
    }
    // One repetition (what tests/sanitize.py asks for) times nothing worth a roofline, and the
    // roofline's 12 all-reduces of 512 MiB would be most of a sanitized run's work.
    double link = o.reps == 1 ? 0.0 : link_busbw_gbps();
    int reps = o.reps;
    if (reps == 0) reps = course::auto_reps(time_job([&] { job->run(); }, nullptr, 1, 1).whole.ms_median);
    JobTiming jt = time_job([&] { job->run(); }, &job->steps, reps);
    course::CheckResult after = agree(job->check());
    double gbps = job->bytes / (jt.whole.ms_median * 1e6);
    double copy = copy_gbps_all(job->bytes, reps);
    std::vector<double> sent = job->link_bytes;
    sent.resize(jt.step_ms.size(), 0.0);
    all_reduce_host(sent.data(), sent.size(), ncclMax);   // the busiest GPU's bytes per step
    if (lead) {
        std::printf("%-24s %-34s %9.4f ms %7.1f GB/s %5.1f%% of copy  %s\n", def.version.c_str(), what.c_str(),
                    jt.whole.ms_median, gbps, copy > 0 ? 100.0 * gbps / copy : 0.0, after.ok ? "PASS" : "FAIL");
        // Each step: the slowest GPU's median time; an exchange also its bytes per GPU and GB/s.
        std::printf("  steps:");
        for (size_t i = 0; i < jt.step_ms.size(); ++i) {
            std::printf("%s %s %.4f ms", i ? " |" : "", job->steps.names()[i].c_str(), jt.step_ms[i]);
            if (sent[i] > 0) {
                double g = sent[i] / (jt.step_ms[i] * 1e6);
                std::printf(" (%.1f MiB out of each GPU, %.1f GB/s", sent[i] / double(1 << 20), g);
                if (link > 0) std::printf(", %.0f%% of the link", 100.0 * g / link);
                std::printf(")");
            }
        }
        std::printf("\n");
        if (!after.ok) std::printf("  after the timed runs: %s\n", after.message.c_str());
        std::fflush(stdout);
        if (!o.csv.empty()) append_csv(o.csv, def, c, jt.whole, gbps, copy, after.ok);
    }
    return after.ok ? 1 : 0;
}

// The whole program: parse (exit 2 before any GPU is touched), count the GPUs (77: none; 2: fewer
// than --gpus), fork the ranks (--ranks P: all on one GPU, the copy transport), run the cases on
// all of them. def.make_trial is not used: the program's jobs come from make_job. --input/--output
// are not offered here.
inline int drive(int argc, char** argv, course::LessonDef def, const MakeJob& make_job) {
    def.cli.extras.push_back(
        {"gpus", true, "how many GPUs (default: every visible GPU); one process each, joined by NCCL"});
    def.cli.extras.push_back({"ranks", true,
                              "P ranks (processes) on ONE GPU, exchanging through host memory instead of "
                              "NCCL: checks P ranks' partition, exchange and merge on one GPU (1 to 64); "
                              "its times measure no link"});
    course::Options o = course::parse_options(argc, argv, def.cli);
    int want = 0;
    bool copy = false;
    try {
        if (!o.input.empty() || !o.output.empty())
            course::usage_error("--input/--output are not offered by the multi-GPU programs");
        auto count_option = [&](const char* name, uint64_t lo) {
            uint64_t g = 0;
            if (!course::parse_count(o.get(name), g) || g < lo || g > uint64_t(kMaxRanks))
                course::usage_error(std::string("--") + name + " '" + o.get(name) + "' must be a count from " +
                                    std::to_string(lo) + " to " + std::to_string(kMaxRanks));
            return int(g);
        };
        if (o.has("gpus")) want = count_option("gpus", 1);
        if (o.has("ranks")) {
            if (want > 1)
                course::usage_error("--ranks runs every rank on one GPU: it cannot go with --gpus " +
                                    std::to_string(want));
            want = count_option("ranks", 1);
            copy = true;
        }
        if (def.validate) def.validate(o);
        // --plan: the one-GPU launch plan of the version this one runs per GPU (what it registered),
        // printed by this process alone: nothing forked, nothing run.
        if (o.plan) return course::print_plan(def, o, {o.n, o.dist, o.param, o.dtype});
        // Rank 0 appends the rows: a path it cannot open for appending is refused now, not after
        // the first case (an old file must have this program's columns: course::open_csv).
        if (!o.csv.empty()) {
            struct stat st;
            FILE* f = stat(o.csv.c_str(), &st) == 0 && st.st_size > 0 ? course::open_csv(o.csv)
                                                                      : std::fopen(o.csv.c_str(), "a");
            if (!f) course::usage_error("cannot open --csv file '" + o.csv + "' for appending");
            std::fclose(f);
        }
    } catch (const course::UsageError& e) { return course::refuse(e); }
    int have = count_gpus();
    if (have == 0) {
        std::fprintf(stderr, "no CUDA device available: this program needs an NVIDIA GPU; skipped\n");
        return course::kExitNoDevice;
    }
    if (!copy && want > have)
        return course::refuse(course::UsageError("--gpus " + std::to_string(want) + " asks for more GPUs than the " +
                                                 std::to_string(have) + " this machine shows"));
    start_team(want ? want : have, copy);
    const bool lead = team().lead();
    int code = course::kExitPass;
    try {
        std::vector<course::Case> cases;
        if (o.test) cases = def.battery(o);
        else if (o.sweep) cases = def.sweep(o);
        else cases.push_back({o.n, o.dist, o.param, o.dtype});
        std::vector<course::Case> runnable;
        size_t beyond = 0;
        std::string beyond_why;
        for (auto& c : cases) {
            std::string why = def.beyond_limit ? def.beyond_limit(c) : "";
            if (why.empty()) runnable.push_back(c);
            else if (!o.test && !o.sweep) throw TeamRefusal(why);
            else {
                ++beyond;
                beyond_why = why;
            }
        }
        if (beyond && lead) std::printf("note: %zu cases beyond this version's limit are not run\n", beyond);
        int passed = 0, failed = 0, skipped = 0;
        for (auto& c : runnable) {
            int r = run_case(def, make_job, o, c, o.test);
            (r > 0 ? passed : r == 0 ? failed : skipped)++;
        }
        // A battery that checked nothing has not passed (every case past the limit, or skipped).
        if (o.test && passed + failed == 0)
            throw TeamRefusal("the battery ran no case on " + std::to_string(team().size) +
                              (copy ? " ranks" : " GPUs") + ": " + std::to_string(beyond) +
                              " beyond this version's limit" + (beyond_why.empty() ? "" : " (" + beyond_why + ")") +
                              ", " + std::to_string(skipped) + " skipped");
        if (o.test && lead) {
            std::printf("%s: %d passed, %d failed", def.version.c_str(), passed, failed);
            if (skipped) std::printf(", %d skipped", skipped);
            std::printf("\n");
        }
        code = failed ? course::kExitWrong : course::kExitPass;
    } catch (const TeamSkip& e) { code = lead ? course::refuse(e) : course::kExitUsage; } catch (const TeamRefusal& e) {
        code = lead ? course::refuse(e) : course::kExitUsage;
    } catch (const course::Refusal& e) {
        return fail_alone(course::kExitUsage, e.what());
    } catch (const std::exception& e) { return fail_alone(course::kExitCudaError, e.what()); }
    std::fflush(stdout);
    return finish_team(code);
}

}   // namespace mgpu
