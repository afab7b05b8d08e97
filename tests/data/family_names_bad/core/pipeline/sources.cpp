// A pipeline file that names the family; the comment "FooModel" and the character '"' do not
// count, the literal after them does.
bool isFoo(const std::string& c) {
    const char quote = '"';  // "FooModel" in a comment
    return c == "FooModelWithHead" && quote;  // line 5
}
