#pragma once
// Printing a Layout in each notation. Printing is exact or it fails: when a notation cannot say
// what the layout means, ConversionError says precisely which part does not fit and why.
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/support/Vocabulary.h"
#include "analyzer/ir/Layout.h"

namespace lp {

enum class Notation { Cute, Tirx, Descriptor };

/// The notations a user names (`--to`, `--notation`, the Python module's `notation=`), in the order
/// help texts list them: the one table names, parsing and every list of choices come from.
inline constexpr Vocabulary<Notation, 3> kNotationNames{
    {{Notation::Cute, "cute"}, {Notation::Tirx, "tirx"}, {Notation::Descriptor, "descriptor"}}};
const char* notation_name(Notation n);
/// The notation kNotationNames names `name`; nullopt for any other text.
std::optional<Notation> notation_from_name(std::string_view name);
/// kNotationNames' names, for a command line's choices.
std::vector<std::string> notation_names();
/// "cute, tirx or descriptor": the choices as a help text or a diagnostic says them.
std::string notation_choices();

class ConversionError : public std::runtime_error {
 public:
  explicit ConversionError(const std::string& what) : std::runtime_error(what) {}
};

/// A printed layout plus what the reader must know: parts of the meaning that live outside the
/// notation (TIRx's logical shape, a descriptor's shape), as notes for stderr.
struct Printed {
  std::string text;
  std::vector<std::string> notes;
};

/// CuTe print format, verbatim as CuTe prints it: `(_4,_3):(_1,_4)`, `Sw<3,3,3> o _0 o ...`.
Printed print_cute(const Layout& layout);
/// TIRx: `S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid`,
/// swizzles as `ComposeLayout(M, B, S, tile)`.
Printed print_tirx(const Layout& layout);
/// Seed-003 descriptor: `(1@0, 8@1)`.
Printed print_descriptor(const Layout& layout);
Printed print(const Layout& layout, Notation notation);
/// In a notation the tools read back: CuTe's where it can say it, else TIRx's.
std::string print_cute_or_tirx(const Layout& layout);

/// CuTe's spelling of a swizzle: `Sw<B,M,S>`.
std::string swizzle_text(const Swizzle& s);
/// `F2[c0,c1,...]`, the CuTe notation's spelling of an F2-linear stage.
std::string f2_text(const F2Map& f);

}  // namespace lp
