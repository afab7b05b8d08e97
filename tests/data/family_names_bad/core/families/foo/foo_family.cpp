// A family, as the check reads it.
void fooFamily(Family& f) {
    f.classNames = {"FooModel",
                    "FooModelWithHead"};
}
