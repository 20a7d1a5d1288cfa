// tests/driver_host.cu — host tests of common/driver.cuh's bookkeeping (no GPU needed): a --test
// battery that ran no case fails and says so; a CSV row ends with its provenance (commit, CUDA,
// driver); an older --csv file (other columns) is refused, not appended to; common/types.cuh maps a
// --type name to its C++ type and registered launcher. Prints one line per test and 'N passed, N failed'.
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <unistd.h>

#include "../common/harness.cuh"
#include "../common/types.cuh"

static int g_passed = 0, g_failed = 0;
static void expect(bool ok, const std::string& name, const std::string& why = "") {
    std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), ok ? "" : ": ", ok ? "" : why.c_str());
    (ok ? g_passed : g_failed)++;
}

static std::string read_all(const std::string& path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// battery_end's status, its closing lines kept out of this test's output (they are not its results).
static int quiet_battery_end(int passed, int failed, int skipped, size_t beyond) {
    std::fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    int rc = course::battery_end("v", passed, failed, skipped, beyond);
    std::fflush(stdout);
    dup2(saved, 1);
    close(null);
    close(saved);
    return rc;
}

static void test_battery_end() {
    expect(quiet_battery_end(0, 0, 0, 12) == course::kExitWrong,
           "a battery whose every case is past the version's limit fails (it checked nothing)");
    expect(quiet_battery_end(0, 0, 3, 0) == course::kExitWrong, "a battery whose every case was skipped fails");
    expect(quiet_battery_end(5, 0, 2, 4) == course::kExitPass, "a battery that ran cases, all passed: exit 0");
    expect(quiet_battery_end(5, 1, 0, 0) == course::kExitWrong, "a battery with a failed case: exit 1");
}

static void test_csv_provenance() {
    setenv("COURSE_COMMIT", "0123456789ab", 1);
    const std::string& p = course::csv_provenance();
    int commas = 0;
    for (char ch : p) commas += ch == ',';
    expect(p.rfind(",0123456789ab,", 0) == 0 && commas == 3 && p.find("unknown,") == std::string::npos,
           "a row's provenance is ',<COURSE_COMMIT>,<CUDA runtime>,<driver>'", p);
    std::string header = course::kCsvHeader;
    const std::string tail = ",check,commit,cuda,driver";
    expect(header.size() > tail.size() && header.compare(header.size() - tail.size(), tail.size(), tail) == 0,
           "the CSV header ends with commit,cuda,driver", header);

    char name[] = "/tmp/driver_host_XXXXXX";   // a scratch file of this test's own
    int fd = mkstemp(name);
    close(fd);
    std::string path = name;
    {
        std::ofstream old(path);
        old << "gpu,lesson,version,dtype,n,dist,param,reps,ms_median,ms_min,gbps,copy_gbps,check\n";
    }
    bool refused = false;
    try {
        std::fclose(course::open_csv(path));
    } catch (const course::UsageError&) { refused = true; }
    expect(refused && read_all(path).find("commit") == std::string::npos,
           "an --csv file with the older columns is refused and left as it was");
    std::remove(path.c_str());
    FILE* f = course::open_csv(path);   // a new file gets the header
    std::fclose(f);
    expect(read_all(path) == header + "\n", "a new --csv file starts with the header");
    f = course::open_csv(path);   // and is appended to afterwards
    std::fclose(f);
    expect(read_all(path) == header + "\n", "an --csv file with the same columns is reopened as it is");
    std::remove(path.c_str());
}

template <class T> using SizeOf = size_t (*)(T);
template <class T> static size_t size_of(T) { return sizeof(T); }

static void test_type_dispatch() {
    using Types = course::TypeList<int32_t, float, uint8_t>;
    auto names = course::type_names(Types{});
    expect(names == std::vector<std::string>{"int32", "float32", "uint8"}, "type_names lists a TypeList in order");
    course::Launchers<SizeOf, int32_t, float, uint8_t> fns(size_of<int32_t>, size_of<float>, size_of<uint8_t>);
    for (auto [name, want] : {std::pair<const char*, size_t>{"int32", 4}, {"float32", 104}, {"uint8", 1}}) {
        size_t got = course::dispatch_type(name, Types{}, [&](auto tag) {
            using T = typename decltype(tag)::type;
            return fns.get<T>()(T{}) + (std::is_same<T, float>::value ? 100 : 0);
        });
        expect(got == want,
               std::string("dispatch_type maps '") + name + "' to its C++ type and its registered launcher");
    }
    bool refused = false;
    try {
        course::dispatch_type("float64", Types{}, [](auto) { return 0; });
    } catch (const course::UsageError&) { refused = true; }
    expect(refused, "dispatch_type refuses a --type the list does not hold (a usage error)");
}

int main() {
    test_battery_end();
    test_type_dispatch();
    test_csv_provenance();
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
