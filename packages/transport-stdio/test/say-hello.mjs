// A module that prints as it is imported, like a chatty dependency.
console.log("hello from an earlier import");
