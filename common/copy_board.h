// common/copy_board.h — the copy transport's meeting place (host-only, no CUDA, no NCCL, so the host
// tests use it too): memory shared by the P processes of one job, made before they are forked.
// `--ranks P` runs P ranks on ONE GPU (NCCL refuses two ranks on one device); every exchange then
// goes through this board: each rank copies what it sends into the board, all meet at a barrier,
// each copies out what is addressed to it. The same bytes as NCCL's path land in the same places,
// so the partition, exchange and merge of every rank are checked on a one-GPU machine; only the
// wire differs (host memory instead of NVLink), which is why its times measure nothing.
//
//   all_to_all(me, sends, recvs, put, get)   every rank's messages to every rank (sizes may differ;
//                                            a rank's pieces to one peer travel back to back)
//   barrier()                                every rank waits until all arrived
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>

namespace mgpu {

constexpr int kMaxRanks = 64;

struct BoardPiece {
    int peer;
    const void* src;
    void* dst;
    size_t bytes;
};   // a send (src) or a receive (dst)

class Board {
public:
    // Before the fork: the control block and an empty data file, shared by every rank forked after.
    void create(int ranks) {
        void* c = mmap(nullptr, sizeof(Control), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED) throw std::runtime_error("mmap of the copy board failed");
        ctl_ = new (c) Control();
        ctl_->ranks = ranks;
        fd_ = memfd_create("course-copy-board", 0);
        if (fd_ < 0) throw std::runtime_error("memfd_create for the copy board failed");
    }
    bool ready() const { return ctl_ != nullptr; }
    int ranks() const { return ctl_->ranks; }

    // Sense-counting barrier in shared memory. A rank that dies never arrives: the job's process
    // watch (multi_gpu.cuh) ends every rank then, so no one spins forever.
    void barrier() {
        const int gen = ctl_->generation.load();
        if (ctl_->arrived.fetch_add(1) + 1 == ctl_->ranks) {
            ctl_->arrived.store(0);
            ctl_->generation.fetch_add(1);
            return;
        }
        for (int spin = 0; ctl_->generation.load() == gen; ++spin)
            if (spin > 1000) usleep(20);
    }

    // Collective. sends: this rank's messages (peer = destination), recvs: what it expects (peer =
    // source); pieces for one peer go in list order. put(board, src, bytes) copies a message in,
    // get(dst, board, bytes) copies one out (cudaMemcpy in the programs, memcpy in the host test).
    // A receive whose sizes do not add up to what its source sent is an error, named on this rank.
    template <class Put, class Get>
    void all_to_all(int me, const std::vector<BoardPiece>& sends, const std::vector<BoardPiece>& recvs, Put put,
                    Get get) {
        const int P = ctl_->ranks;
        for (int q = 0; q < P; ++q) ctl_->sizes[me][q] = 0;
        for (const BoardPiece& s : sends) ctl_->sizes[me][s.peer] += s.bytes;
        barrier();
        // Message (src, dst) starts at the sum of the messages before it in (src, dst) order, each
        // rounded up to 256 bytes: every rank computes the same places.
        std::vector<size_t> at(size_t(P) * P + 1, 0);
        for (int i = 0; i < P * P; ++i) at[i + 1] = at[i] + (ctl_->sizes[i / P][i % P] + 255) / 256 * 256;
        map_at_least(at[size_t(P) * P]);
        std::vector<size_t> put_at(P);
        for (int q = 0; q < P; ++q) put_at[q] = at[size_t(me) * P + q];
        for (const BoardPiece& s : sends) {
            if (s.bytes) put(data_ + put_at[s.peer], s.src, s.bytes);
            put_at[s.peer] += s.bytes;
        }
        barrier();
        std::vector<size_t> want(P, 0), got(P, 0);
        for (const BoardPiece& r : recvs) want[r.peer] += r.bytes;
        std::string wrong;
        for (int p = 0; p < P && wrong.empty(); ++p)
            if (want[p] != ctl_->sizes[p][me])
                wrong = "rank " + std::to_string(me) + " expected " + std::to_string(want[p]) + " bytes from rank " +
                        std::to_string(p) + ", which sent " + std::to_string(ctl_->sizes[p][me]);
        for (const BoardPiece& r : recvs) {
            if (!wrong.empty()) break;
            if (r.bytes) get(r.dst, data_ + at[size_t(r.peer) * P + me] + got[r.peer], r.bytes);
            got[r.peer] += r.bytes;
        }
        barrier();   // every rank has read its messages: the board may be written again
        if (!wrong.empty()) throw std::runtime_error("copy transport: " + wrong);
    }

private:
    struct Control {
        int ranks = 1;
        std::atomic<int> arrived{0}, generation{0};
        uint64_t sizes[kMaxRanks][kMaxRanks] = {};   // sizes[src][dst]: bytes of the current exchange
    };
    // Grows the shared file (never shrinks it: every rank asks for the same size in one exchange,
    // and sizes of later exchanges only add) and maps all of it.
    void map_at_least(size_t bytes) {
        if (bytes <= mapped_) return;
        off_t now = lseek(fd_, 0, SEEK_END);
        if (now < off_t(bytes) && ftruncate(fd_, off_t(bytes)) != 0)
            throw std::runtime_error("copy board: cannot grow to " + std::to_string(bytes) + " bytes");
        if (data_) munmap(data_, mapped_);
        void* d = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (d == MAP_FAILED) throw std::runtime_error("copy board: cannot map " + std::to_string(bytes) + " bytes");
        data_ = static_cast<unsigned char*>(d);
        mapped_ = bytes;
    }
    Control* ctl_ = nullptr;
    int fd_ = -1;
    unsigned char* data_ = nullptr;
    size_t mapped_ = 0;
};

}   // namespace mgpu
